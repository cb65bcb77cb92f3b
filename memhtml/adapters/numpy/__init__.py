"""numpy adapters: the candidate pool's cosine table."""

from memhtml.adapters.numpy.cosine_table import CosineTable, NumpyPairwiseCosine

__all__ = ["CosineTable", "NumpyPairwiseCosine"]
