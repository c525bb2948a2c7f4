"""Built-in plugins: the default pipeline hooks, strategies, highlights detectors, storage
backends and tokenizer.

Each module is an ordinary plugin, registered by import (see
:data:`truncation_core.hooks.loader.DEFAULT_PLUGINS`) before any installed plugin, and every
implementation is ``trylast``: an installed or project plugin always wins.

Every Truncator imports them all, and most of its calls never need a highlight: the
``salient_*`` detector modules make their detector on the first call of their hook
(cached), and their units' helpers leave their regular expressions to
:mod:`re`'s cache, so that importing them compiles none (they compiled some hundred, two
thirds of the time the built-ins took to import).
"""
