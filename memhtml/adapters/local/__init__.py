"""Adapter package: local."""
