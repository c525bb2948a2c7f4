"""Built-in plugins: the default strategies, markers and storage backends.

Each module is an ordinary plugin, registered by import (see
:data:`truncation_core.hooks.host.DEFAULT_PLUGINS`) before any installed plugin, and every
implementation is ``trylast``: an installed or project plugin always wins.
"""
