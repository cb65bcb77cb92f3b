"""The in-memory storage backend: every storage port over plain dictionaries and the pure twins.

It ranks with the domain's twins of the SQLite statements (bm25 and tokenizer, float32 cosine,
recency, salience, fusion, scope, reinforcement), so the whole pipeline returns the same hits
over it as over SQLite; see ``tests/contract/``.
"""

from memhtml.adapters.memory.storage import memory_storage, open_memory_storage
from memhtml.adapters.memory.tables import MemoryTables

__all__ = ["MemoryTables", "memory_storage", "open_memory_storage"]
