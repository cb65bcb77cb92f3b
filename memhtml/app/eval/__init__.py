"""The evaluation harnesses (docs/evaluation.md): the discrimination gate and the LoCoMo benchmark.

Each builds its stores through the real write, index and retrieval paths in a temporary folder;
neither opens a user's repository.
"""
