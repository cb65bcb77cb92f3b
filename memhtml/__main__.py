"""``python -m memhtml``: the same program as the ``memhtml`` console script."""

from memhtml.app.cli import main

if __name__ == "__main__":
    main()
