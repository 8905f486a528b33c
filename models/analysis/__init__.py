"""Model-free math: the toy attention stages on 2-D vectors, and summaries over heads and layers."""
