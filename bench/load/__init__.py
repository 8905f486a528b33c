"""A class at once: headless students speaking Streamlit's websocket protocol against
the app on loopback, and one table of what the server did (``make load``; docs/deployment.md).

protocol: the messages (pure); client: one student's connection; pages: what students do on each
page; scenarios: class, burst, soak; metrics: the server's CPU, memory and tracebacks; report:
the table and the floors; ``__main__``: the command line.
"""
