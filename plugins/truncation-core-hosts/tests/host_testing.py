"""Helpers of the host hook tests: payloads recorded from each host's documented contract,
and the real ``trunc`` started as the host starts it."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

PAYLOADS = Path(__file__).parent / "payloads"
TRUNC = Path(sys.executable).parent / "trunc"


def payload(name: str, **changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((PAYLOADS / f"{name}.json").read_text())
    data = copy.deepcopy(data)
    data.update(changes)
    return data
