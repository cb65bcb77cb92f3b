"""The warm helper process's entry point: ``python -m memhtml.app.cli.warm_serve KEY IDLE``.

It lives in the command-line package because the helper runs forwarded commands
(``warm_commands``) as well as embeddings; ``bootstrap/warm_helper.py`` builds the model and
runs the helper's life, given the runner built here.
"""

from __future__ import annotations

import sys

from memhtml.app.bootstrap.warm_helper import main

if __name__ == "__main__":
    from memhtml.app.cli.warm_commands import command_runner

    sys.exit(main(sys.argv[1:], commands=command_runner))
