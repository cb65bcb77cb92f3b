"""The git ports over dulwich (no ``git`` binary): ``DulwichGit`` reads, ``DulwichGitWriter``
commits."""

from memhtml.adapters.git.dulwich_git import DulwichGit
from memhtml.adapters.git.dulwich_writer import DulwichGitWriter

__all__ = ["DulwichGit", "DulwichGitWriter"]
