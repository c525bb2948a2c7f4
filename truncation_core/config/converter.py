"""The one cattrs converter, and turning its errors into one message per problem.

Checks live in structure hooks rather than attrs validators so that each error keeps its path
(``tools.execute_command.inline_limit: must be a positive integer, got -5``); attrs validators
on the same classes repeat them for objects built directly in code. The default cattrs hooks
are replaced by strict ones: ``"12"``, ``3.9`` and ``True`` are not integers here.

cattrs is imported by this module only, and this module only when configuration is structured
from a mapping, so ``import truncation_core`` stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import attrs
import cattrs
from cattrs.errors import (
    AttributeValidationNote,
    CattrsError,
    ClassValidationError,
    ForbiddenExtraKeysError,
    IterableValidationError,
)
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn

from truncation_core.config.model import Config
from truncation_core.errors import ConfigError, did_you_mean
from truncation_core.types.checks import (
    Direction,
    DirectoryPath,
    KeyPath,
    NonNegativeInt,
    PositiveInt,
    PreviewForm,
    Ratio,
    SessionName,
    TokenizerName,
    check_direction,
    check_directory_path,
    check_key_path,
    check_non_negative_int,
    check_positive_int,
    check_preview_form,
    check_ratio,
    check_session_name,
    check_tokenizer_name,
    is_int,
    nesting_problem,
)
from truncation_core.types.policy import BUILTIN_BACKENDS, StoreConfig
from truncation_core.types.settings import OVERRIDE_NAMES, ToolConfig, check_override
from truncation_core.types.templates import marker_template_problems
from truncation_core.types.tool_names import (
    ArtifactToolNames,
    check_published_tools,
    check_tool_name_map,
    check_tool_prefix,
)

__all__ = [
    "STRUCTURE_ERRORS",
    "config_from_mapping",
    "converter",
    "problems_from",
    "structure",
]


def _strict(kind: type, name: str) -> Callable[[Any, Any], Any]:
    def hook(value: Any, _type: Any) -> Any:
        if type(value) is not kind:
            raise TypeError(f"must be {name}, got {value!r}")
        return value

    return hook


def _strict_float(value: Any, _type: Any) -> float:
    if not (is_int(value) or isinstance(value, float)):
        raise TypeError(f"must be a number, got {value!r}")
    return float(value)


def _strict_tuple_of_str(value: Any, _type: Any) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise TypeError(f"must be a list of strings, got {value!r}")
    items = tuple(value)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"must be a list of strings, got an item {item!r}")
    return items


def _build() -> cattrs.Converter:
    conv = cattrs.Converter(forbid_extra_keys=True)
    # Sections (attrs classes) must be mappings; say so instead of cattrs' internal errors.
    conv.register_structure_hook_factory(attrs.has, lambda cl: _mapping_first(cl, conv))
    # Strict scalars: the default hooks call int(v), accepting "12", 3.9 and True.
    conv.register_structure_hook(int, _strict(int, "an integer"))
    conv.register_structure_hook(str, _strict(str, "a string"))
    conv.register_structure_hook(bool, _strict(bool, "true or false"))
    conv.register_structure_hook(float, _strict_float)
    conv.register_structure_hook(PositiveInt, lambda v, _: check_positive_int(v))
    conv.register_structure_hook(Ratio, lambda v, _: check_ratio(v))
    conv.register_structure_hook(Direction, lambda v, _: check_direction(v))
    conv.register_structure_hook(PreviewForm, lambda v, _: check_preview_form(v))
    conv.register_structure_hook(KeyPath, lambda v, _: check_key_path(v))
    conv.register_structure_hook_func(lambda t: t == tuple[str, ...], _strict_tuple_of_str)
    conv.register_structure_hook(NonNegativeInt, lambda v, _: check_non_negative_int(v))
    conv.register_structure_hook(DirectoryPath, lambda v, _: check_directory_path(v))
    conv.register_structure_hook(SessionName, lambda v, _: check_session_name(v))
    conv.register_structure_hook(TokenizerName, lambda v, _: check_tokenizer_name(v))
    conv.register_structure_hook(ToolConfig, _structure_tool_config)
    conv.register_unstructure_hook(ToolConfig, lambda tool: dict(tool.overrides))
    conv.register_structure_hook(ArtifactToolNames, _structure_tool_names)
    conv.register_unstructure_hook(ArtifactToolNames, lambda names: {
        "prefix": names.prefix, "names": dict(names.names),
        "published": list(names.published)})
    conv.register_structure_hook(StoreConfig, _store_hook(conv))
    conv.register_unstructure_hook(StoreConfig, _unstructure_store(conv))
    return conv


def _structure_tool_config(value: Any, _type: Any) -> ToolConfig:
    """A tool's overrides, each checked as the global setting of the same name is; errors
    keep their key's path, as cattrs' own do."""
    if not isinstance(value, Mapping):
        raise TypeError(f"must be a mapping of keys to values, got {_described(value)}")
    unknown = {key for key in value if key not in OVERRIDE_NAMES}
    errors: list[Exception] = []
    if unknown:
        errors.append(ForbiddenExtraKeysError(None, ToolConfig, {str(k) for k in unknown}))
    checked = {}
    for key, item in value.items():
        if key in unknown or item is None:
            continue
        try:
            checked[key] = check_override(key, item)
        except ValueError as exc:
            exc.__notes__ = [AttributeValidationNote(str(exc), key, Any)]
            errors.append(exc)
    if errors:
        raise ClassValidationError("invalid tool settings", errors, ToolConfig)
    return ToolConfig(**checked)


_TOOL_NAME_CHECKS: Mapping[str, Callable[[object], Any]] = {
    "prefix": check_tool_prefix, "names": check_tool_name_map,
    "published": check_published_tools}


def _structure_tool_names(value: Any, _type: Any) -> ArtifactToolNames:
    """``artifact_tools:``, each key checked where it stands (errors keep its path)."""
    if not isinstance(value, Mapping):
        raise TypeError(f"must be a mapping of keys to values, got {_described(value)}")
    errors: list[Exception] = []
    unknown = {str(key) for key in value if key not in _TOOL_NAME_CHECKS}
    if unknown:
        errors.append(ForbiddenExtraKeysError(None, ArtifactToolNames, unknown))
    checked = {}
    for key, check in _TOOL_NAME_CHECKS.items():
        if key in value:
            try:
                checked[key] = check(value[key])
            except ValueError as exc:
                exc.__notes__ = [AttributeValidationNote(str(exc), key, Any)]
                errors.append(exc)
    if errors:
        raise ClassValidationError("invalid artifact tool names", errors, ArtifactToolNames)
    return ArtifactToolNames(**checked)


def _described(value: Any) -> str:
    return (repr(value) if value is None or isinstance(value, str | int | float)
            else f"a {type(value).__name__}")


def _mapping_first(cl: type, conv: cattrs.Converter) -> Callable[[Any, Any], Any]:
    """The generated hook for an attrs class, after checking that the data is a mapping
    (otherwise cattrs fails with "argument of type 'NoneType' is not iterable")."""
    structure_fields: Callable[[Any, Any], Any] = make_dict_structure_fn(cl, conv)

    def hook(value: Any, type_: Any) -> Any:
        if not isinstance(value, Mapping):
            raise TypeError(f"must be a mapping of keys to values, got {_described(value)}")
        return structure_fields(value, type_)

    return hook


def _store_hook(conv: cattrs.Converter) -> Callable[[Any, Any], Any]:
    """``store`` keeps the keys it does not know as the backend's ``options``: a backend from a
    plugin has settings of its own (``url``, ``prefix``), which its factory checks. A built-in
    backend has none, so there they are unknown keys, reported here."""
    structure_fields = _mapping_first(StoreConfig, conv)
    own = {a.name for a in attrs.fields(StoreConfig)} - {"options"}

    def hook(value: Any, type_: Any) -> Any:
        if not isinstance(value, Mapping):
            return structure_fields(value, type_)
        fields = {k: v for k, v in value.items() if k in own}
        options = {k: v for k, v in value.items() if k not in own}
        backend = fields.get("backend", StoreConfig().backend)
        builtin = isinstance(backend, str) and backend in BUILTIN_BACKENDS
        unknown = {k for k in options if builtin or not isinstance(k, str)}
        if unknown:
            raise ForbiddenExtraKeysError(None, StoreConfig, unknown)
        store = structure_fields(fields, type_)
        return attrs.evolve(store, options=options) if options else store

    return hook


def _unstructure_store(conv: cattrs.Converter) -> Callable[[Any], Any]:
    """A store's options back at the level they were written at (``store.url``)."""
    unstructure_fields = make_dict_unstructure_fn(StoreConfig, conv)

    def hook(store: StoreConfig) -> dict[str, Any]:
        data = unstructure_fields(store)
        data.pop("options", None)
        data.update(store.options)
        return data

    return hook


converter = _build()

#: What structuring bad data raises: cattrs' exception groups are not ValueErrors.
STRUCTURE_ERRORS = (TypeError, ValueError, CattrsError)


def structure(data: Any, cls: type) -> Any:
    """Structure *data* into *cls*; raise ValueError-compatible cattrs errors on failure."""
    if not isinstance(data, Mapping):
        raise TypeError(f"must be a mapping of keys to values, got {type(data).__name__}")
    return converter.structure(dict(data), cls)


#: Messages quote the bad value (its repr); a value of megabytes is shown this far.
MESSAGE_CHARS = 200


def _clipped(text: str) -> str:
    return text if len(text) <= MESSAGE_CHARS else (
        f"{text[:MESSAGE_CHARS]}... ({len(text):,} characters)")


def _join(path: str, key: object) -> str:
    if isinstance(key, str) and key.isidentifier():
        return f"{path}.{key}" if path else key
    return f"{path}[{_clipped(repr(key))}]"


def _describe(exc: BaseException, where: str) -> list[str]:
    """``path: message`` lines for one leaf error found at *where*."""
    if isinstance(exc, ConfigError):  # raised by a class that checks itself (MarkerConfig),
        return list(exc.problems)  # its problems already name their keys
    if isinstance(exc, ForbiddenExtraKeysError):
        # Reported under the unknown key's own path, so that the path names the culprit.
        known = ([a.name for a in attrs.fields(exc.cl) if a.name != "options"]
                 if attrs.has(exc.cl)
                 else list(OVERRIDE_NAMES) if exc.cl is ToolConfig else [])
        # Keys from YAML may be anything hashable (null, a number): sorted by their repr.
        return [f"{_join(where, key)}: unknown key"
                f"{did_you_mean(key, known) if isinstance(key, str) else ''}"
                for key in sorted(exc.extra_fields, key=repr)]
    if isinstance(exc, KeyError):
        message = "missing required key"
    elif isinstance(exc, AttributeError) and "items" in str(exc):
        message = "must be a mapping of keys to values"
    else:
        message = _clipped(str(exc))
    return [f"{where or '<top level>'}: {message}"]


def problems_from(exc: BaseException, path: str = "") -> list[str]:
    """Flatten a cattrs exception group into ``"path: message"`` strings."""
    out: list[str] = []

    def walk(error: BaseException, where: str) -> None:
        if isinstance(error, ClassValidationError | IterableValidationError):
            with_notes, without = error.group_exceptions()
            for sub, note in with_notes:
                key = getattr(note, "name", None)
                if key is None:
                    key = getattr(note, "index", "?")
                walk(sub, _join(where, key))
            for sub in without:
                walk(sub, where)
            return
        out.extend(_describe(error, where))

    walk(exc, path)
    return out


def config_from_mapping(data: Mapping[str, Any], *, source: str | None = None) -> Config:
    """Build a :class:`Config` from a mapping with the config file's keys.

    Raises :class:`~truncation_core.errors.ConfigError` with one message per problem (and
    one naming the key path when *data* nests deeper than configuration may).
    """
    deep = nesting_problem(data)
    if deep is not None:
        raise ConfigError([deep], source=source)
    try:
        config: Config = structure(data, Config)
    except ConfigError:
        raise
    except STRUCTURE_ERRORS as exc:
        # cattrs' exception groups, our checks (ValueError), a non-mapping (TypeError).
        raise ConfigError(problems_from(exc) or [str(exc)], source=source) from None
    problems = marker_template_problems(config.marker)
    if problems:
        raise ConfigError(problems, source=source)
    return config
