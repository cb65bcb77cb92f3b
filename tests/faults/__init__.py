"""The fault-injection suite (issue 14): real processes killed at every step, damaged files."""
