"""The artifact store contract (tests/store_contract.py) on the built-in backends, filesystem
and memory (the ``make_store`` fixture of conftest.py)."""

from store_contract import *  # noqa: F403
