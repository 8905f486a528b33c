"""Serving machinery: what runs the app for a class rather than what the pages show.

- :mod:`serve.runtime`: process-wide settings (torch's threads, the interpreter's switch interval,
  the frozen long-lived heap, a fix to Streamlit's runner); imported before torch.
- :mod:`serve.slots`: how many script runs of one process work at once.
- :mod:`serve.memory`: a run that sent large charts collects its garbage and hands the freed
  pages back to the operating system.
- :mod:`serve.cache`: the result cache bounded in entries and bytes, shared read-only.
- :mod:`serve.lab_jobs`: the training lab's job server (a queue of worker processes).
- :mod:`serve.launch`: the one way to start ``streamlit run`` on a port and wait until it is
  healthy, used by ``deploy/``, ``tests/`` and ``bench/``.

Below ``ui/`` and above ``models/``: ``ui/`` and the pages import it; it imports neither of them,
nor ``viz/``, and no streamlit but the server's runtime (``tests/test_imports.py``).
"""
