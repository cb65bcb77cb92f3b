"""Planning model batches: which texts run together, so padding costs as little as possible."""

from __future__ import annotations

from collections.abc import Sequence


def length_sorted_batches(
    lengths: Sequence[int], size: int, max_tokens: int
) -> tuple[tuple[int, ...], ...]:
    """Input positions grouped into batches, shortest texts first.

    A batch is padded to its longest member, so grouping similar lengths wastes the least
    work: one 512-token text among 31 short ones would otherwise make all 32 cost 512 tokens.
    A batch also closes before its padded size (members × longest) passes ``max_tokens``:
    on a CPU a batch of long texts runs no faster per text than the texts alone, so past that
    size batching only adds padding and memory traffic.

    The sort is stable, so equal lengths keep their input order and the plan is deterministic.
    Callers write each result back to its position, which restores the input order.

    Args:
        lengths: Token count of each text, in input order.
        size: Most texts per batch; at least 1.
        max_tokens: Most padded tokens per batch; a single longer text still gets a batch.

    Returns:
        Every position exactly once, batch by batch, lengths non-decreasing across the whole plan.
    """
    if size < 1:
        raise ValueError("batch size must be at least 1")
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    batches: list[tuple[int, ...]] = []
    current: list[int] = []
    for position in order:
        # Sorted ascending, so the newcomer is the longest member if it joins.
        if current and (
            len(current) == size or (len(current) + 1) * lengths[position] > max_tokens
        ):
            batches.append(tuple(current))
            current = []
        current.append(position)
    if current:
        batches.append(tuple(current))
    return tuple(batches)
