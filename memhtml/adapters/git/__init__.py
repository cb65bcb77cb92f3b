"""Adapter package: git."""
