"""Built-in plugins: the default pipeline hooks, strategies, highlights detector, storage
backends and tokenizer.

Each plugin is an ordinary module, registered by import (see
:data:`truncation_core.hooks.loader.DEFAULT_PLUGINS`) before any installed plugin, and every
implementation is ``trylast``: an installed or project plugin always wins.

Every Truncator imports the plugins, and most of its calls never need a highlight: the
highlights detector (``highlights.py``) imports the detectors it is made of, the generic
``salient.py`` and the tool families' ``salient_*.py``, which are data and not plugins, on
its first call; their units' helpers leave their regular expressions to :mod:`re`'s cache.
"""
