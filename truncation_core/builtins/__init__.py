"""Built-in plugins: the default strategies, markers and storage backends.

Each module is an ordinary plugin, registered by import (see
:data:`truncation_core.hooks.host.DEFAULT_PLUGINS`) before any installed plugin, and every
implementation is ``trylast``: an installed or project plugin always wins.

Every Truncator imports them all, and most of its calls never need a highlight: the
``salient_*`` detector modules make their patterns, units and records on the first call of
their hooks (cached), and their units' helpers leave their regular expressions to
:mod:`re`'s cache, so that importing them compiles none (they compiled some hundred, two
thirds of the time the built-ins took to import).
"""
