"""The default ``format_marker``: the templates from configuration (``marker:``).

With the default templates the markers are the specified ones, with numbers written like
``12,340``:
``\\n... [X lines / Y chars omitted] ...\\n`` for head_tail, ``... [Beginning omitted: X lines /
Y chars] ...`` for tail and ``... [Remainder omitted: X lines / Y chars] ...`` for head. When
the omitted part is kept, ``{hint}`` says how to read it back. Notes of structured strategies
(``marker.element`` set) use the ``json_*``, ``jsonl_records``, ``ranked_results`` and ``xml_*``
templates.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from truncation_core.hooks.specs import hookimpl
from truncation_core.types.policy import Policy

if TYPE_CHECKING:
    from truncation_core.types.cuts import Marker


@hookimpl(trylast=True)
def format_marker(marker: Marker, policy: Policy) -> str:
    from truncation_core.types.markers import render_configured

    return render_configured(marker, policy)
