"""In-memory stand-ins for the ports, for unit tests that assert on state rather than calls."""

from tests.fakes.git import FakeGit

__all__ = ["FakeGit"]
