"""Benchmarks and evaluation runners; results are recorded in BENCHMARKS.md."""
