"""Where configuration comes from, and which source set each value.

Precedence, highest first:

1. code: ``Truncator.from_config(overrides={...})`` (or ``trunc`` options);
2. environment variables: ``TRUNCATION_CORE_<KEY>``, with ``__`` between nested keys
   (``TRUNCATION_CORE_TOOLS__EXECUTE_COMMAND__INLINE_LIMIT=5000``), values read as YAML
   scalars; plus the plugin switches ``TRUNCATION_CORE_PLUGINS`` (allowlist),
   ``TRUNCATION_CORE_DISABLE_PLUGINS``, ``TRUNCATION_CORE_DISABLE_PLUGIN_AUTOLOAD`` and
   ``TRUNCATION_CORE_STRICT_PLUGINS``;
3. the project file: the nearest ``.truncation.yaml`` (or ``.yml``), or ``[tool.truncation_core]``
   in ``pyproject.toml``, searching from the working directory up (skipping, with a warning,
   a file another user could have written: :mod:`truncation_core.config.trust`); or the file
   named by ``TRUNCATION_CORE_CONFIG``;
4. defaults.

Layers are merged key by key (a file setting ``tools.read_file.inline_limit`` keeps the
built-in ``read_file`` strategy). ``Truncator(config=...)`` reads none of these: it uses exactly
the configuration it is given.
"""

from __future__ import annotations

import functools
import os
import re
import stat
import sys
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from truncation_core.config import trust
from truncation_core.config.model import BUILTIN_TOOL_POLICIES, Config, PluginsConfig
from truncation_core.errors import ConfigError, UntrustedConfigWarning, log
from truncation_core.types.checks import MAX_CONFIG_DEPTH, key_path, nesting_problem

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["LoadedConfig", "find_config_file", "find_store_workspace", "load_config"]


ENV_PREFIX = "TRUNCATION_CORE_"
CONFIG_FILE_NAMES = (".truncation.yaml", ".truncation.yml")
PYPROJECT_TABLE = ("tool", "truncation_core")

#: Environment variables that are not config keys: (path, how to read the value).
_LIST = "list"
_FLAG = "flag"
_NOT_FLAG = "not-flag"
PLUGIN_ENV_VARS: Mapping[str, tuple[tuple[str, ...], str]] = {
    "TRUNCATION_CORE_PLUGINS": (("plugins", "enable"), _LIST),
    "TRUNCATION_CORE_DISABLE_PLUGINS": (("plugins", "disable"), _LIST),
    "TRUNCATION_CORE_DISABLE_PLUGIN_AUTOLOAD": (("plugins", "autoload"), _NOT_FLAG),
    "TRUNCATION_CORE_STRICT_PLUGINS": (("plugins", "strict"), _FLAG),
}
#: Environment variables under the prefix that are neither config keys nor plugin switches.
OTHER_ENV_VARS = frozenset({"TRUNCATION_CORE_CONFIG"})

SOURCE_DEFAULT = "default"
SOURCE_BUILTIN_POLICY = "built-in tool policy"


@attrs.frozen(kw_only=True)
class LoadedConfig:
    """A configuration, the file it came from, and the source of each value set."""

    config: Config
    #: The project config file that was read, if any.
    path: Path | None
    #: Dotted key path -> description of the source that set it (absent: the default).
    sources: Mapping[str, str]
    #: Config files found by searching but skipped, because another user could have written
    #: them: one message each, saying why and how to use the file anyway.
    skipped: tuple[str, ...] = ()

    @property
    def project_root(self) -> Path | None:
        """Where project plugins (``plugins.modules``) are imported from: the config file's
        directory."""
        return self.path.parent.resolve() if self.path is not None else None

    def source_of(self, key: str) -> str:
        if key in self.sources:
            return self.sources[key]
        tool_key = re.fullmatch(r"tools\.([^.]+)\.strategy", key)
        if tool_key and tool_key.group(1) in BUILTIN_TOOL_POLICIES:
            return SOURCE_BUILTIN_POLICY
        return SOURCE_DEFAULT


def find_config_file(start: Path | str | None = None,
                     skipped: list[str] | None = None) -> Path | None:
    """The nearest config file at or above *start* (default: the working directory):
    ``.truncation.yaml`` first, then a ``pyproject.toml`` that has a
    ``[tool.truncation_core]`` table.

    A file that another user could have written is skipped (see
    :mod:`truncation_core.config.trust`), and the search goes on above it; *skipped* gets
    one message per file skipped, saying why and how to use it anyway, and one per directory
    that this user may not look into.
    """
    def trusted(candidate: Path) -> bool:
        reason = trust.untrusted_reason(candidate)
        if reason is None:
            return True
        if skipped is not None:
            skipped.append(f"config file {candidate} skipped: {reason} ({trust.HOW_TO_ALLOW})")
        return False

    # The directories are walked as strings, and only a file found is made a Path: a search
    # that finds nothing (every start-up of trunc in a directory without configuration)
    # does not import pathlib, which imports urllib.parse and ipaddress.
    for directory in _directories_up(start):
        try:
            for name in CONFIG_FILE_NAMES:
                candidate = os.path.join(directory, name)
                if _is_file(candidate) and trusted(_path(candidate)):
                    return _path(candidate)
            pyproject = os.path.join(directory, "pyproject.toml")
            # Another user's pyproject.toml without the table is none of our business: no
            # warning for it (reading TOML runs no code).
            if (_is_file(pyproject) and _has_table(_path(pyproject))
                    and trusted(_path(pyproject))):
                return _path(pyproject)
        except PermissionError:
            # A directory this user may not look into (a command run as another user from
            # under a private home): what it holds is unknown, and the search goes on above
            # it, as it would if it held nothing, rather than fail every Truncator.
            if skipped is not None:
                skipped.append(f"config search skipped {directory}: permission denied")
    return None


def _path(path: str) -> Path:
    return Path(path)


def _directories_up(start: Path | str | None) -> Iterator[str]:
    """*start* and each directory above it, as ``(start, *start.parents)`` gives them."""
    if start is not None:
        given = _path(os.fspath(start))
        yield from (str(directory) for directory in (given, *given.parents))
        return
    directory = os.getcwd()  # absolute and normalized, as Path.cwd() is
    while True:
        yield directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return
        directory = parent


def _is_file(path: str) -> bool:
    """Whether *path* is a regular file (through symlinks), as :func:`os.path.isfile` says,
    except that a permission denied raises :class:`PermissionError`: the caller says so."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except PermissionError:
        raise
    except (OSError, ValueError):  # not there, a loop, a NUL in the path, a bad name
        return False


def _has_table(pyproject: Path) -> bool:
    try:
        return _pyproject_table(pyproject) is not None
    except ConfigError:
        # Malformed: an error if it is the user's own (reading it again says what is wrong),
        # skipped silently if it is another user's.

        if trust.untrusted_reason(pyproject) is None:
            raise
        return False


#: A TOML key (``[a.b.c]``, ``a.b.c = 1``) of more parts than this is refused before the
#: document is parsed: tomllib keeps every prefix of a dotted key, so that 10,000 parts (a
#: 20 kB file) take 600 MiB. Room for the ``tool.truncation_core`` prefix of a pyproject.
MAX_TOML_KEY_PARTS = MAX_CONFIG_DEPTH + len(PYPROJECT_TABLE)


@functools.cache
def _long_dotted_key() -> re.Pattern[str]:
    """A dotted key of more than :data:`MAX_TOML_KEY_PARTS` parts, bare or quoted, anywhere
    (inside a string too: a false alarm needs a string of that many dotted words, which no
    setting holds). Possessive quantifiers keep the scan linear, and so does starting only
    where a key can start: not inside a word, nor after a dot (that part of a key was
    scanned from its first part)."""
    part = r"""(?:[A-Za-z0-9_-]++|"(?:[^"\\\n]|\\.)*+"|'[^'\n]*+')"""
    return re.compile(rf"(?<![A-Za-z0-9_.-]){part}"
                      rf"(?:[ \t]*+\.[ \t]*+{part}){{{MAX_TOML_KEY_PARTS}}}")


def _read_toml(path: Path) -> dict[str, Any]:
    # only for a pyproject.toml: 1.7 ms (python -X importtime, fastest of 9, 2026-12)
    import tomllib

    try:
        with path.open("rb") as f:
            text = f.read().decode("utf-8")
        deep = _long_dotted_key().search(text)
        if deep is None:
            return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:  # TOML is UTF-8 only
        raise ConfigError([f"{path}: not valid TOML: {exc}"]) from None
    except RecursionError:  # tomllib parses nested arrays and inline tables recursively
        raise ConfigError([f"{path}: not valid TOML: arrays or inline tables nested too "
                           "deep"]) from None
    except ValueError:  # an integer over Python's digit limit (sys.get_int_max_str_digits)
        raise ConfigError([f"{path}: not valid TOML: an integer with more than "
                           f"{sys.get_int_max_str_digits():,} digits"]) from None
    except OSError as exc:
        raise ConfigError([f"{path}: cannot be read: {exc.strerror}"]) from None
    line = text.count("\n", 0, deep.start()) + 1
    parts = [part.strip() for part in deep.group().split(".")]
    raise ConfigError([f"{path}:{line}: {key_path(parts)}: a key of more than "
                       f"{MAX_TOML_KEY_PARTS} parts (configuration nests at most "
                       f"{MAX_CONFIG_DEPTH} keys deep)"])


def _tool_table(data: Any, path: Path) -> Mapping[str, Any] | None:
    for key in PYPROJECT_TABLE:
        if not isinstance(data, Mapping) or key not in data:
            return None
        data = data[key]
    if not isinstance(data, Mapping):
        what = ("an array of tables ([[tool.truncation_core]])" if isinstance(data, list)
                else f"a {type(data).__name__}")
        raise ConfigError([f"{path}: tool.truncation_core must be a table "
                           f"([tool.truncation_core]), not {what}"])
    return data


def _pyproject_table(path: Path) -> Mapping[str, Any] | None:
    return _tool_table(_read_toml(path), path)


def read_config_file(path: Path) -> Mapping[str, Any]:
    """The settings in *path*: the ``[tool.truncation_core]`` table of a pyproject; for another
    ``.toml`` file, that table if it has one, else its top level; YAML otherwise."""
    if path.name == "pyproject.toml":
        table = _pyproject_table(path)
        if table is None:
            raise ConfigError([f"{path}: has no [tool.truncation_core] table"])
        return table
    if path.suffix.lower() == ".toml":
        data = _read_toml(path)
        table = _tool_table(data, path)
        return data if table is None else table
    # only for a YAML file: 11 ms (python -X importtime, fastest of 9, 2026-12)
    import yaml

    try:
        with path.open("rb") as f:
            data = load_yaml(f)
    except OSError as exc:
        raise ConfigError([f"{path}: cannot be read: {exc.strerror}"]) from None
    except yaml.YAMLError as exc:
        raise ConfigError([f"{path}{_yaml_problem(exc)}"]) from None
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise ConfigError([f"{path}: must be a mapping of keys to values at the top level"])
    return data


#: How deep a YAML document may nest (the schema needs five levels, the document's own
#: included: ``tools.<name>.marker.middle``); deeper is an error, not a RecursionError.
MAX_YAML_DEPTH = MAX_CONFIG_DEPTH


def load_yaml(source: Any) -> Any:
    """A YAML document as :func:`yaml.safe_load` reads it, refusing what configuration never
    needs and what can blow up: aliases (``*name``: a few hundred bytes of nested aliases
    expand to gigabytes once anything walks the result), nesting deeper than
    :data:`MAX_YAML_DEPTH`, and integers longer than Python converts
    (:func:`sys.get_int_max_str_digits`). Each is a :class:`yaml.YAMLError` with the
    position."""
    loader = _config_loader()(source)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


@functools.cache
def _config_loader() -> type:
    import yaml
    from yaml.composer import ComposerError
    from yaml.constructor import ConstructorError

    class ConfigLoader(yaml.SafeLoader):
        depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()  # type: ignore[no-untyped-call]
                raise ComposerError(None, None, "aliases (*name) are not accepted in "
                                    "configuration: write the value out", event.start_mark)
            if self.depth >= MAX_YAML_DEPTH:
                raise ComposerError(None, None, f"nested more than {MAX_YAML_DEPTH} levels "
                                    "deep", self.peek_event().start_mark)  # type: ignore[no-untyped-call]
            self.depth += 1
            try:
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

        def construct_yaml_int(self, node: Any) -> Any:
            digits = sys.get_int_max_str_digits()
            if digits and len(str(node.value)) > digits + 8:  # room for sign, 0x, _ ...
                raise ConstructorError(None, None, f"an integer with more than {digits:,} "
                                       "digits", node.start_mark)
            try:
                return super().construct_yaml_int(node)
            except ValueError:
                raise ConstructorError(None, None, f"an integer with more than {digits:,} "
                                       "digits", node.start_mark) from None

    ConfigLoader.add_constructor("tag:yaml.org,2002:int", ConfigLoader.construct_yaml_int)
    return ConfigLoader


def _yaml_problem(exc: Exception) -> str:
    """``:line:column: not valid YAML: problem`` for a YAML error."""
    mark = getattr(exc, "problem_mark", None)
    where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
    problem = getattr(exc, "problem", None) or str(exc)
    return f"{where}: not valid YAML: {problem}"


def _env_value(name: str, raw: str) -> Any:
    import yaml
    from yaml.composer import ComposerError
    from yaml.constructor import ConstructorError

    try:
        return load_yaml(raw)
    except (ComposerError, ConstructorError) as exc:  # refused, not merely "not YAML"
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError([f"environment variable {name}: {problem}"]) from None
    except yaml.YAMLError:
        return raw  # not YAML: the text itself


def _split_list(raw: str) -> list[str]:
    return [item.strip() for item in raw.split(",") if item.strip()]


def _truthy(raw: str) -> bool:
    return raw.strip().lower() not in ("", "0", "false", "no", "off")


def environment_layer(environ: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """Settings from environment variables, and the variable behind each dotted key."""
    data: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for name in sorted(environ):
        if not name.startswith(ENV_PREFIX) or name in OTHER_ENV_VARS:
            continue
        raw = environ[name]
        if name in PLUGIN_ENV_VARS:
            path, kind = PLUGIN_ENV_VARS[name]
            value: Any = (_split_list(raw) if kind == _LIST
                          else _truthy(raw) if kind == _FLAG else not _truthy(raw))
        else:
            path = tuple(part.lower() for part in name[len(ENV_PREFIX):].split("__"))
            if not all(path):
                continue
            if len(path) > MAX_CONFIG_DEPTH:
                raise ConfigError([f"environment variable {_clipped(name)}: "
                                   f"{key_path(path)}: nested more than {MAX_CONFIG_DEPTH} "
                                   f"keys deep (configuration nests at most "
                                   f"{MAX_CONFIG_DEPTH})"])
            value = _env_value(name, raw)
            deep = nesting_problem({path[-1]: value}, limit=MAX_CONFIG_DEPTH - len(path) + 1)
            if deep is not None:
                raise ConfigError([f"environment variable {_clipped(name)}: value nested "
                                   f"more than {MAX_CONFIG_DEPTH} keys deep with the "
                                   f"variable's own {len(path)} (configuration nests at most "
                                   f"{MAX_CONFIG_DEPTH})"])
        _set(data, path, value)
        sources[".".join(path)] = f"environment variable {name}"
    return data, sources


def _clipped(name: str, most: int = 80) -> str:
    """An environment variable's name for a message: a hostile one may be huge."""
    return name if len(name) <= most else f"{name[:most - 1]}…"


def _set(data: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    for key in path[:-1]:
        child = data.get(key)
        if not isinstance(child, dict):
            child = data[key] = {}
        data = child
    data[path[-1]] = value


def _check_nesting(data: Mapping[str, Any], source: str) -> None:
    """Refuse *data* from *source* when it nests deeper than configuration may: the layers
    are merged and their keys listed recursively."""
    problem = nesting_problem(data)
    if problem is not None:
        raise ConfigError([f"{source}: {problem}"])


def _merge(base: dict[str, Any], layer: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in layer.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = _merge(dict(merged[key]), value)
        else:
            merged[key] = value
    return merged


def _leaves(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, Mapping) and value:
            out.update(_leaves(value, path))
        else:
            out[path] = value
    return out


def _annotate(problems: tuple[str, ...], sources: Mapping[str, str]) -> list[str]:
    """Append to each problem the source of the value it is about."""
    annotated = []
    for problem in problems:
        key = problem.partition(": ")[0]
        source = sources.get(key) or next(
            (s for k, s in sources.items() if k.startswith(key + ".")), None)
        annotated.append(f"{problem} (from {source})" if source else problem)
    return annotated


_SWITCHES: Mapping[str, type] = {"enable": list, "disable": list, "autoload": bool,
                                  "strict": bool}


def _without_converter(data: Mapping[str, Any]) -> Config | None:
    """The configuration of *data* when it is empty, or holds nothing but plugin switches as
    the environment gives them (lists of names, flags): what the converter would build, without
    importing cattrs on every start-up. None for anything else."""
    if not data:
        return Config()
    if data.keys() != {"plugins"} or not isinstance(data["plugins"], dict):
        return None
    switches = data["plugins"]
    for key, value in switches.items():
        kind = _SWITCHES.get(key)
        if kind is None or type(value) is not kind:
            return None
        if isinstance(value, list) and not all(type(name) is str for name in value):
            return None
    return Config(plugins=PluginsConfig(**switches))


def load_config(
    path: Path | str | None = None,
    *,
    start: Path | str | None = None,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> LoadedConfig:
    """Read configuration from every source and merge it by precedence.

    :param path: a config file to read instead of searching for one.
    :param start: where the search for a config file begins (default: the working directory).
    :param environ: the environment (default: :data:`os.environ`).
    :param overrides: settings from code, with the config file's keys.
    """
    environ = os.environ if environ is None else environ
    skipped: list[str] = []
    if path is None and environ.get("TRUNCATION_CORE_CONFIG"):
        path = environ["TRUNCATION_CORE_CONFIG"]
    if path is not None:
        file_path: Path | None = Path(path)
        if not file_path.is_file():  # type: ignore[union-attr]
            raise ConfigError([f"{file_path}: is a directory, not a config file"
                               if file_path.is_dir()  # type: ignore[union-attr]
                               else f"{file_path}: no such config file"])
    else:
        file_path = find_config_file(start, skipped)
    for message in skipped:
        log.warning("%s", message)
        warnings.warn(message, UntrustedConfigWarning, stacklevel=2)

    merged: dict[str, Any] = {}
    sources: dict[str, str] = {}
    layers: list[tuple[Mapping[str, Any], dict[str, str]]] = []
    if file_path is not None:
        file_data = read_config_file(file_path)
        _check_nesting(file_data, str(file_path))
        layers.append((file_data, dict.fromkeys(_leaves(file_data), str(file_path))))
    layers.append(environment_layer(environ))
    if overrides:
        _check_nesting(overrides, "overrides (from code)")
        layers.append((overrides, dict.fromkeys(_leaves(overrides), "code")))
    for data, layer_sources in layers:
        merged = _merge(merged, data)
        sources.update(layer_sources)
    trivial = _without_converter(merged)
    if trivial is not None:  # nothing to convert: cattrs is not imported
        return LoadedConfig(config=trivial, path=file_path, sources=sources,
                            skipped=tuple(skipped))
    from truncation_core.config.converter import config_from_mapping

    try:
        config = config_from_mapping(merged)
    except ConfigError as exc:
        raise ConfigError(_annotate(exc.problems, sources)) from None
    return LoadedConfig(config=config, path=file_path, sources=sources,
                        skipped=tuple(skipped))


def find_store_workspace(root: str, start: str | None = None) -> str | None:
    """Where a relative store *root* is taken from when no config file says (the config
    file's directory does): the nearest directory at or above *start* (default: the working
    directory) that holds *root* already, a directory of the current user's (the store's
    own rule for its root), so that ``trunc artifacts show`` from a subdirectory finds what
    ``trunc run`` stored in the project's root, as ``git`` finds ``.git``. None when there
    is none: the working directory then, where the store is made on its first write.
    """
    if os.path.isabs(root) or root.startswith("~"):
        return None
    me = os.geteuid() if hasattr(os, "geteuid") else None
    for directory in _directories_up(start):
        try:
            st = os.stat(os.path.join(directory, root))
        except (OSError, ValueError):
            continue
        if stat.S_ISDIR(st.st_mode) and (me is None or st.st_uid == me):
            return directory
    return None
