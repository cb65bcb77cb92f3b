"""Typed roles the application drives (git, storage, embeddings, clock). One Protocol per module."""
