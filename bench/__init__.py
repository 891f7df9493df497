"""Benchmarks of the OnlineRank hot paths: ``.venv/bin/python -m bench`` from the repo root."""
