"""Checks of configuration values, and the types that name them.

Each ``NewType`` names a checked type (``PositiveInt``, ``Ratio`` ...): the converter
(:mod:`truncation_core.config.converter`) runs its ``check_*`` function while structuring a
mapping, so that an error carries its path, and :func:`validator` runs the same check for
objects built in code. A check raises ``ValueError`` with the expected form.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NewType

import attrs

from truncation_core.errors import ConfigError, InvalidSessionId
from truncation_core.types.ids import validate_session_id

__all__ = [
    "DIRECTIONS",
    "MAX_CONFIG_DEPTH",
    "PREVIEW_FORMS",
    "Direction",
    "DirectoryPath",
    "KeyPath",
    "NonNegativeInt",
    "PositiveInt",
    "PreviewForm",
    "Ratio",
    "SessionName",
    "TokenizerName",
    "check_direction",
    "check_directory_path",
    "check_key_path",
    "check_non_negative_int",
    "check_positive_int",
    "check_preview_form",
    "check_ratio",
    "check_session_name",
    "check_tokenizer_name",
    "is_int",
    "key_path",
    "nesting_problem",
    "validator",
]

PositiveInt = NewType("PositiveInt", int)
Ratio = NewType("Ratio", float)
Direction = NewType("Direction", str)
NonNegativeInt = NewType("NonNegativeInt", int)
DirectoryPath = NewType("DirectoryPath", str)
SessionName = NewType("SessionName", str)
KeyPath = NewType("KeyPath", str)
TokenizerName = NewType("TokenizerName", str)
PreviewForm = NewType("PreviewForm", str)

DIRECTIONS = ("head", "tail")
#: What an artifact reference stands above: the cut of the whole budget, or a short preview.
PREVIEW_FORMS = ("full", "short")


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_positive_int(value: object) -> PositiveInt:
    if not is_int(value) or value <= 0:  # type: ignore[operator]
        raise ValueError(f"must be a positive integer, got {value!r}")
    return value  # type: ignore[return-value]


def check_ratio(value: object) -> Ratio:
    if not (is_int(value) or isinstance(value, float)) or not 0 <= value <= 1:  # type: ignore[operator]
        raise ValueError(f"must be a number from 0 to 1, got {value!r}")
    return Ratio(float(value))  # type: ignore[arg-type]


def check_direction(value: object) -> Direction:
    if value not in DIRECTIONS:
        raise ValueError(f"must be one of {', '.join(DIRECTIONS)}, got {value!r}")
    return value  # type: ignore[return-value]


def check_preview_form(value: object) -> PreviewForm:
    if value not in PREVIEW_FORMS:
        raise ValueError(f"must be one of {', '.join(PREVIEW_FORMS)}, got {value!r}")
    return value  # type: ignore[return-value]


def check_non_negative_int(value: object) -> NonNegativeInt:
    if not is_int(value) or value < 0:  # type: ignore[operator]
        raise ValueError(f"must be an integer of 0 or more, got {value!r}")
    return value  # type: ignore[return-value]


def check_directory_path(value: object) -> DirectoryPath:
    if not isinstance(value, str) or not value.strip() or "\0" in value:
        raise ValueError(f"must be a directory path (a non-empty string), got {value!r}")
    return DirectoryPath(value)


def check_session_name(value: object) -> SessionName:
    try:
        return SessionName(validate_session_id(value))
    except InvalidSessionId:
        raise ValueError("must be 1 to 64 lowercase ASCII letters, digits, '-' or '_', "
                         f"starting with a letter or digit, got {value!r}") from None


def check_key_path(value: object) -> KeyPath:
    """A dotted path of keys into a JSON object: ``score`` or ``metadata.similarity_score``."""
    if not isinstance(value, str) or not value or any(
            not part or part != part.strip() for part in value.split(".")):
        raise ValueError("must be a dotted path of keys such as 'score' or "
                         f"'metadata.similarity_score', got {value!r}")
    return KeyPath(value)


def check_tokenizer_name(value: object) -> TokenizerName:
    """A tokenizer's name: ``estimate``, or one a plugin provides (checked against the loaded
    plugins when the Truncator is built)."""
    if type(value) is not str or not value or value != value.strip():
        raise ValueError(f"must be a tokenizer name such as 'estimate' or 'o200k_base', "
                         f"got {value!r}")
    return TokenizerName(value)


#: How many keys deep configuration may nest, in any source (a file, the environment, code).
#: The schema needs four (``tools.<name>.marker.middle``); deeper is an error naming the key
#: path, never a RecursionError, or the quadratic memory of a parser given 10,000 levels.
MAX_CONFIG_DEPTH = 32

#: Keys of a path shown whole at each end of an abbreviated one, and the characters of a key.
_PATH_ENDS = 3
_KEY_CHARS = 24


def key_path(keys: Sequence[object]) -> str:
    """*keys* as a dotted path (``tools.read_file.marker``, ``plugins.modules[2]``), its
    middle left out when it is long and each key clipped: it names a place in an error
    message, which a hostile document must not fill."""
    def shown(key: object) -> str:
        text = key if isinstance(key, str) else repr(key)
        return text if len(text) <= _KEY_CHARS else text[:_KEY_CHARS - 1] + "…"

    def joined(part: Sequence[object]) -> str:
        out = ""
        for key in part:
            out += f"[{key}]" if is_int(key) else (f".{shown(key)}" if out else shown(key))
        return out

    if len(keys) <= 2 * _PATH_ENDS + 1:
        return joined(keys)
    hidden, tail = len(keys) - 2 * _PATH_ENDS, joined(keys[-_PATH_ENDS:])
    return (f"{joined(keys[:_PATH_ENDS])}.…({hidden:,} more keys)…"
            f"{'' if tail.startswith('[') else '.'}{tail}")


def nesting_problem(data: object, *, limit: int = MAX_CONFIG_DEPTH) -> str | None:
    """What is wrong with *data* (mappings and lists, as a config source gives them) when
    something in it lies more than *limit* keys deep: the abbreviated key path and the
    limit. None when it does not. Walked without recursion, and no deeper than *limit* + 1
    (a mapping that holds itself, from code, is just too deep)."""
    stack: list[tuple[object, int, tuple[Any, ...] | None]] = [(data, 0, None)]
    while stack:
        node, depth, link = stack.pop()
        if isinstance(node, Mapping):
            items: Any = node.items()
        elif isinstance(node, list | tuple):
            items = enumerate(node)
        else:
            continue
        for key, child in items:
            if depth >= limit:
                keys: list[object] = [key]
                while link is not None:
                    keys.append(link[0])
                    link = link[1]
                return (f"{key_path(keys[::-1])}: nested more than {limit} keys deep "
                        f"(configuration nests at most {limit})")
            stack.append((child, depth + 1, (key, link)))
    return None


def validator(check: Callable[[object], Any]) -> Callable[[object, Any, object], None]:
    """An attrs validator running *check*, whose error names the field: the converter runs
    the same checks while structuring (so that errors carry their path), and these repeat
    them for objects built directly in code."""
    def validate(_inst: object, attribute: attrs.Attribute[Any], value: object) -> None:
        if value is None and attribute.default is None:
            return
        try:
            check(value)
        except ValueError as exc:
            raise ConfigError([f"{attribute.name}: {exc}"]) from None

    return validate
