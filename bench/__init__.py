"""Benchmarks (``make bench``): start-up, first render and interaction latency in Chromium."""
