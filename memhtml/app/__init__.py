"""Composition root, use cases and the command-line interface."""
