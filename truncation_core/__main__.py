"""``python -m truncation_core`` runs the ``trunc`` command line."""

from truncation_core.cli import main

main()
