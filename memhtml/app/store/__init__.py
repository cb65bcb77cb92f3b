"""The Python facade a program embeds (``memhtml.open``): :class:`Store` and its constructors.

``facade.py`` holds the class, its methods are grouped by plane (``reads``, ``writes``,
``upkeep``) over ``core.py``'s services and lifetime, and ``opening.py`` opens, creates and
clones stores.
"""

from memhtml.app.store.facade import Store
from memhtml.app.store.opening import clone_store_at, init_store_at, open_store
from memhtml.app.store.writes import near_policy

__all__ = ["Store", "clone_store_at", "init_store_at", "near_policy", "open_store"]
