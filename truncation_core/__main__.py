"""``python -m truncation_core`` (and the ``trunc`` script) runs the command line.

The command line is the ``cli`` extra (click and rich): without it, this says how to install
it instead of failing with an import error.
"""

from __future__ import annotations

import sys


def main() -> None:
    try:
        import click  # noqa: F401
        import rich  # noqa: F401
    except ImportError as exc:
        sys.stderr.write(f"trunc: the command line needs the cli extra ({exc.name} is not "
                         "installed): pip install 'truncation-core[cli]'\n")
        raise SystemExit(1) from None
    from truncation_core.cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
