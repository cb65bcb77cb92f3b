"""The search and recall pipeline: plan, fuse (in storage), then the steps after fusion.

Built from domain rules and narrow storage ports, so every backend runs the same pipeline:
``RankStore`` answers the fused ranks of a plan, ``CandidateStore`` the rows, snippets and
entities of a set of paths, ``ArchiveLookup`` the scope questions, ``AccessStore`` the
reinforcement. Polarity, MMR, snippets and the disclosure fold run here, once.
"""

from memhtml.app.retrieval.pipeline import RECALL_CANDIDATES, RetrievalPipeline

__all__ = ["RECALL_CANDIDATES", "RetrievalPipeline"]
