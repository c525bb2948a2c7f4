"""Structured logs (JSON Lines): records whose level says error, or that carry an error.

A record is taken when its level or severity (``level``, ``lvl``, ``severity``,
``levelname``, ``log.level``, ``loglevel``; also nested as ``{"log": {"level": ...}}``) names
an error (``error``, ``err``, ``fatal``, ``critical``, ``crit``, ``panic``, ``alert``,
``emerg``, ``emergency``, ``severe``, any case) or is a number of 50 and above on pino's and
bunyan's scale (50 error, 60 fatal); or when it has an error field that holds something
(``err``, ``error``, ``exception``, ``exc_info``, ``stack``, ``stack_trace``,
``stacktrace``). So pino's ``{"level":50,...,"err":{...}}``, winston's and structlog's
``"level": "error"``, python-json-logger's ``"severity": "ERROR"`` and GCP's
``"severity":"ERROR"`` are all taken, and a record whose message merely mentions an error is
not.

It imports only names that :mod:`truncation_core.plugin` exports: it uses the hooks exactly as
a third party would.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from truncation_core.types.salient import SalientDetector, SalientRecord

_LEVEL_FIELDS = ("level", "lvl", "severity", "levelname", "log.level", "loglevel",
                 "level_name", "@level")
_ERROR_LEVELS = frozenset({"error", "err", "fatal", "critical", "crit", "panic", "alert",
                           "emerg", "emergency", "severe"})
_ERROR_FIELDS = ("err", "error", "exception", "exc_info", "stack", "stack_trace",
                 "stacktrace")


def _level_is_error(value: object) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in _ERROR_LEVELS
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value >= 50
    return False


def is_error_record(record: Mapping[str, Any]) -> bool:
    """Whether *record* reports an error: by its level, or by an error field with content."""
    for field in _LEVEL_FIELDS:
        if field in record and _level_is_error(record[field]):
            return True
    log = record.get("log")
    if isinstance(log, Mapping) and _level_is_error(log.get("level")):
        return True
    for field in _ERROR_FIELDS:
        value = record.get(field)
        if isinstance(value, Mapping | list) and value:
            return True
        if isinstance(value, str) and value.strip() and value.strip().lower() not in (
                "none", "null", "false", "nil"):
            return True
    return False


def _records() -> tuple[SalientRecord, ...]:
    return (
        SalientRecord(
            name="log-error", rank=1,
            keywords=('"error"', '"err"', '"ERROR"', '"Error"', '"fatal"', '"FATAL"',
                      '"critical"', '"CRITICAL"', '"crit"', '"exception"', '"exc_info"',
                      '"stack"', '"stack_trace"', '"stacktrace"', '"level":5', '"level":6',
                      '"level": 5', '"level": 6', '"panic"', '"alert"', '"emerg"', '"severe"',
                      '"SEVERE"', '"Fatal"', '"Critical"'),
            test=is_error_record,
        ),
    )


#: What this family's output says went wrong, and how it ended.
DETECTOR = SalientDetector(records=_records())
