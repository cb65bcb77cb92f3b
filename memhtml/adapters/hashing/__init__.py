"""A deterministic embedder with no model: feature hashing of words. For tests and fake evals."""
