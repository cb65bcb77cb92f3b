"""Adapters over the operating system itself (the wall clock)."""
