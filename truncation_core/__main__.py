"""``python -m truncation_core`` (and the ``trunc`` script) runs the command line.

The command line is the ``cli`` extra (click and rich): without it, this says how to install
it instead of failing with an import error.
"""

from __future__ import annotations

import gc
import sys
from importlib.util import find_spec


def main() -> None:
    missing = next((name for name in ("click", "rich") if find_spec(name) is None), None)
    if missing is not None:  # (rich is imported only when a table is printed)
        sys.stderr.write(f"trunc: the command line needs the cli extra ({missing} is not "
                         "installed): pip install 'truncation-core[cli]'\n")
        raise SystemExit(1)
    # trunc is one short process. Starting a command makes tens of thousands of objects that
    # live as long as it does (modules, functions, classes: the command line's, then the
    # library's and the plugins' when the command builds its Truncator): the cyclic
    # collector would traverse them some thirty times while they are made, and again when
    # the process exits. It waits until the start-up is over (the command's Truncator is
    # built), then leaves what the start-up made out (gc.freeze).
    collecting = gc.isenabled()
    gc.disable()

    def started() -> None:
        gc.freeze()
        if collecting:
            gc.enable()

    try:
        from truncation_core.cli import main as cli_main
        from truncation_core.cli import state
    except BaseException:
        started()
        raise
    state.on_start_up_done = started
    try:
        cli_main()
    finally:
        if not gc.isenabled() and collecting:  # a command that built no Truncator
            started()


if __name__ == "__main__":
    main()
