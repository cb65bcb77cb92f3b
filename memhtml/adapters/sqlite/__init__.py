"""Adapter package: sqlite."""
