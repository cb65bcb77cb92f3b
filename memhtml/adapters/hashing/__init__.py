"""Deterministic embedders with no model: feature hashing of words. For tests and fake evals."""

from memhtml.adapters.hashing.embedder import HashingEmbedder
from memhtml.adapters.hashing.fake_bow import FakeBowEmbedder

__all__ = ["FakeBowEmbedder", "HashingEmbedder"]
