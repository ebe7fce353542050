"""Benchmarks: ``scripts/bench`` (``python -m benchmarks``) runs every ``bench_*.py`` module."""
