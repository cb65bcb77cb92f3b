"""Implementations of the ports over real technology. Adapters never import each other or app."""
