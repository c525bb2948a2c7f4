"""``python -m truncation_core`` (and the ``trunc`` script) runs the command line.

The command line is the ``cli`` extra (click and rich): without it, this says how to install
it instead of failing with an import error.
"""

from __future__ import annotations

import gc
import sys


def main() -> None:
    from importlib.util import find_spec

    missing = next((name for name in ("click", "rich") if find_spec(name) is None), None)
    if missing is not None:  # (rich is imported only when a table is printed)
        sys.stderr.write(f"trunc: the command line needs the cli extra ({missing} is not "
                         "installed): pip install 'truncation-core[cli]'\n")
        raise SystemExit(1)
    # trunc is one short process. Importing its command line makes tens of thousands of
    # objects that live as long as it does (modules, functions, classes): the cyclic
    # collector traversed them some thirty times while they were made, and again when the
    # process exits. It waits until they are made, then leaves them out (gc.freeze).
    collecting = gc.isenabled()
    gc.disable()
    try:
        from truncation_core.cli import main as cli_main

        gc.freeze()
    finally:
        if collecting:
            gc.enable()
    cli_main()


if __name__ == "__main__":
    main()
