"""`python -m atlas_plotly` (run by `make setup`): copy plotly.js into the asset folder."""

from atlas_plotly import ensure_plotly_js

print(ensure_plotly_js())
