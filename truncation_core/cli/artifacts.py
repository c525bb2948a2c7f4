"""``trunc artifacts``: list, read, search, clean, export and import stored artifacts.

Works on the storage backend named by the configuration (``store.backend``: the filesystem
store by default, or one a plugin provides), across all its sessions, through the storage
protocol (:mod:`truncation_core.types.storage`): an artifact is found by id in whichever
session holds it. Where an artifact id is taken, the id of the tool call whose output it
holds is taken too (the newest such artifact, in any session).
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import click

from truncation_core.artifacts.archive import export_session, import_archive
from truncation_core.cli.state import AppState, console, pass_state
from truncation_core.config.model import BUILTIN_TOOL_POLICIES
from truncation_core.errors import (
    ArtifactNotFound,
    InvalidArtifactId,
    TruncationCoreError,
    did_you_mean,
)
from truncation_core.retrieval import line_start, reader_for
from truncation_core.retrieval.scanning import CHUNK, count_terminators, file_size
from truncation_core.text.decoding import decode, utf8_boundary_before
from truncation_core.types.artifacts import human_size
from truncation_core.types.ids import is_tool_call_id, validate_artifact_id, validate_session_id
from truncation_core.types.storage import find_tool_call_anywhere

if TYPE_CHECKING:
    from truncation_core.retrieval import Page, Retrieval
    from truncation_core.types.reports import SessionInfo
    from truncation_core.types.storage import StorageBackend

_DURATION = re.compile(r"([0-9]{1,9})([smhdw])")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_LINES = re.compile(r"([0-9]{1,15})(?:-([0-9]{1,15})?)?")


def parse_duration(value: str) -> float:
    """``90s``, ``15m``, ``12h``, ``7d`` or ``2w`` in seconds."""
    m = _DURATION.fullmatch(value.strip())
    if m is None:
        raise click.BadParameter(f"expected a number and a unit (s, m, h, d or w), such as 7d;"
                                 f" got {value!r}")
    return int(m.group(1)) * _UNITS[m.group(2)]


def parse_lines(value: str) -> tuple[int, int | None]:
    """``10-20``, ``10-`` (to the end) or ``10`` (one line)."""
    m = _LINES.fullmatch(value.strip())
    if m is None or int(m.group(1)) < 1:
        raise click.BadParameter(f"expected a line range such as 1-50, 100- or 7; got {value!r}")
    start = int(m.group(1))
    if m.group(2) is None:
        end = None if value.strip().endswith("-") else start
    else:
        end = int(m.group(2))
        if end < start:
            raise click.BadParameter(f"the range ends before it starts: {value!r}")
    return start, end


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _age(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{max(int(seconds), 0)}s"


def storage_backend(state: AppState) -> StorageBackend:
    """The configured storage backend, built as the library builds it (plugins included)."""
    return state.truncator().store.backend


def _ref_document(ref: Any) -> dict[str, Any]:
    return attrs.asdict(ref)


def _write_raw(store: Retrieval, artifact_id: str, page: Page) -> None:
    """Write the page's bytes exactly as stored (line endings and all) to stdout."""
    out = sys.stdout.buffer
    last = b""
    with store.open(artifact_id) as f:
        for data in _copy(f, page.offset, page.end_offset):
            out.write(data)
            last = data[-1:]
    if out.isatty() and last and last not in (b"\n", b"\r"):
        out.write(b"\n")
    out.flush()


def _page_document(ref: Any, page: Page) -> dict[str, Any]:
    return {"artifact": _ref_document(ref), "first_line": page.first_line,
            "last_line": page.last_line, "text": page.text, "next_line": page.next_line,
            "next_offset": page.next_offset}


@click.group("artifacts")
def artifacts_group() -> None:
    """List, read, search, clean, export and import stored artifacts."""


@artifacts_group.command("list")
@click.option("--session", help="Only this session's artifacts.")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@pass_state
def list_command(state: AppState, session: str | None, as_json: bool) -> None:
    """List artifacts: id, size, source and age, oldest first."""
    root = storage_backend(state)
    sessions = root.sessions()
    if session is not None:
        _check_session(root, session, sessions)
    refs = []
    for info in sessions:
        if session is None or info.id == session:
            refs.extend(root.session(info.id).list())
    now = time.time()
    if as_json:
        click.echo(json.dumps([{**_ref_document(r), "age_seconds": round(now - r.created_at, 3)}
                               for r in refs], indent=2))
        return
    from rich.table import Table

    table = Table(title="artifacts", caption=f"{len(refs)} in {root.location}")
    for column, justify in (("ID", "left"), ("Size", "right"), ("Lines", "right"),
                            ("Source", "left"), ("Age", "right"), ("Session", "left")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for r in refs:
        source = r.summary or (r.tool or "-")
        if r.truncated:
            source += " (cut)"
        if r.interrupted:
            source += " (partial)"
        table.add_row(r.id, r.size, f"{r.lines:,}", source, _age(now - r.created_at),
                      r.session or "-")
    console().print(table)


def _check_session(root: StorageBackend, session: str, sessions: list[SessionInfo]) -> None:
    """A session name that is malformed, or that no session has, is an error (a typo would
    otherwise list nothing and succeed)."""
    validate_session_id(session)
    names = [s.id for s in sessions]
    if session not in names:
        raise click.ClickException(f"no session {session!r} in {root.location}"
                                   f"{did_you_mean(session, names)}")


def _find(state: AppState, handle: str) -> tuple[Retrieval, str]:
    """The reader of the session holding the artifact *handle* names (an artifact id, or a
    tool call id: its newest artifact), and the artifact's id. The handle is validated
    first."""
    backend = storage_backend(state)
    if is_tool_call_id(handle):
        found = find_tool_call_anywhere(backend, handle)
        if found is None:
            raise ArtifactNotFound.for_tool_call(handle)
        store, ref = found
        return reader_for(store), ref.id
    try:
        artifact_id = validate_artifact_id(handle)
    except InvalidArtifactId:
        raise InvalidArtifactId(handle, handles=True) from None
    return reader_for(backend.find(artifact_id)), artifact_id


@artifacts_group.command("show")
@click.argument("artifact_id")
@click.option("--lines", "line_range", help="Only these lines: 1-50, 100- or 7.",
              callback=lambda _ctx, _param, v: None if v is None else parse_lines(v))
@click.option("--json", "as_json", is_flag=True, help="Print metadata and text as JSON.")
@pass_state
def show_command(state: AppState, artifact_id: str, line_range: tuple[int, int | None] | None,
                 as_json: bool) -> None:
    """Print an artifact (or some of its lines) exactly as stored.

    ARTIFACT_ID is the artifact's id, or the id of the tool call whose output it holds (the
    newest artifact stored for it). The bytes are copied from the artifact to the output a
    chunk at a time, so that an artifact of any size, or one long line, takes little memory.
    """
    store, artifact_id = _find(state, artifact_id)
    start, end = line_range or (1, None)
    ref = store.stat(artifact_id)
    with store.open(artifact_id) as f:
        begin = line_start(f, start)
        if begin is None:
            if start > 1:  # nothing there: say so, as get_artifact does
                raise click.BadParameter(f"line {start:,} is past the end; the artifact has "
                                         f"{ref.lines:,} lines", param_hint="'--lines'")
            begin = 0  # an empty artifact
        stop = None if end is None else line_start(f, end - start + 2, origin=begin)
        out = sys.stdout.buffer
        if as_json:
            _write_json_page(out, ref, f, begin, stop, start)
        else:
            last = b""
            for data in _copy(f, begin, stop):
                out.write(data)
                last = data[-1:]
            if out.isatty() and last and last not in (b"\n", b"\r"):
                out.write(b"\n")
        out.flush()


def _copy(f: Any, begin: int, stop: int | None) -> Any:
    """The bytes ``[begin, stop)`` of *f* (to its end when *stop* is None), in chunks."""
    f.seek(begin)
    left = None if stop is None else stop - begin
    while left is None or left > 0:
        data = f.read(CHUNK * 16 if left is None else min(CHUNK * 16, left))
        if not data:
            return
        if left is not None:
            left -= len(data)
        yield data


def _write_json_page(out: Any, ref: Any, f: Any, begin: int, stop: int | None,
                     first_line: int) -> None:
    """The page document of ``show --json``, with its text encoded chunk by chunk."""
    total = file_size(f)
    out.write(b'{\n  "artifact": ' + json.dumps(_ref_document(ref), ensure_ascii=True)
              .encode() + b',\n  "first_line": ' + str(first_line if total else 0).encode()
              + b',\n  "text": "')
    carry = b""
    terminators, last, ended = 0, b"", begin
    for data in _copy(f, begin, stop):
        ended += len(data)
        data = carry + data
        cut = utf8_boundary_before(data, len(data))  # never split a character
        data, carry = data[:cut], data[cut:]
        if data.endswith(b"\r"):  # a "\r\n" pair may be split: count it with what follows
            data, carry = data[:-1], b"\r" + carry
        terminators += count_terminators(data)
        last = data[-1:] or last
        out.write(json.dumps(decode(data), ensure_ascii=True)[1:-1].encode())
    if carry:
        terminators += count_terminators(carry)
        last = carry[-1:]
        out.write(json.dumps(decode(carry), ensure_ascii=True)[1:-1].encode())
    shown = ended > begin
    last_line = (first_line + terminators - (1 if last in (b"\n", b"\r") else 0)
                 if shown else 0)
    eof = ended >= total
    next_line = None if eof else last_line + 1
    out.write(b'",\n  "last_line": ' + str(last_line).encode()
              + b',\n  "next_line": ' + json.dumps(next_line).encode()
              + b',\n  "next_offset": ' + json.dumps(None if eof else ended).encode()
              + b"\n}\n")


def _lines_command(name: str, help_text: str) -> Any:
    @artifacts_group.command(name, help=help_text)
    @click.argument("artifact_id")
    @click.option("-n", "--lines", "count", type=click.IntRange(min=1), default=10,
                  show_default=True, help="How many lines.")
    @click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
    @pass_state
    def command(state: AppState, artifact_id: str, count: int, as_json: bool) -> None:
        store, artifact_id = _find(state, artifact_id)
        page = (store.head(artifact_id, count) if name == "head"
                else store.tail(artifact_id, count))
        if as_json:
            click.echo(json.dumps(_page_document(store.stat(artifact_id), page),
                                  ensure_ascii=True, indent=2))
            return
        _write_raw(store, artifact_id, page)

    return command


_lines_command("head", "Print the first lines of an artifact.")
_lines_command("tail", "Print the last lines of an artifact (read from its end).")


class _GrepError(click.ClickException):
    """An error of ``trunc artifacts grep``: exit 2, as grep does (1 means "no match")."""

    exit_code = 2


@artifacts_group.command("grep")
@click.argument("artifact_id")
@click.argument("pattern")
@click.option("-E", "--regex", is_flag=True, help="PATTERN is a regular expression.")
@click.option("-i", "--ignore-case", is_flag=True, help="Ignore case.")
@click.option("-C", "--context", type=click.IntRange(min=0, max=100), default=0,
              help="Lines of context around each match.")
@click.option("-m", "--max-count", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Stop after this many matching lines.")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@pass_state
def grep_command(state: AppState, artifact_id: str, pattern: str, regex: bool,
                 ignore_case: bool, context: int, max_count: int, as_json: bool) -> None:
    """Print the lines of an artifact that contain PATTERN, with their numbers.

    Exits 0 when a line matched, 1 when none did, and 2 on an error (as grep does).
    """
    try:
        store, artifact_id = _find(state, artifact_id)
        result = store.grep(artifact_id, pattern, regex=regex, ignore_case=ignore_case,
                            context=context, max_matches=max_count)
    except TruncationCoreError as exc:
        raise _GrepError(str(exc)) from None
    if as_json:
        click.echo(json.dumps({
            "artifact_id": artifact_id, "more": result.more, "matches": [
                {"line": m.line.number, "text": m.line.text, "clipped": m.line.clipped,
                 "before": [attrs.asdict(c) for c in m.before],
                 "after": [attrs.asdict(c) for c in m.after]} for m in result.matches]},
            ensure_ascii=True, indent=2))
        return
    previous = 0
    for line, is_match in result.merged():
        if context and previous and line.number > previous + 1:
            click.echo("--")
        click.echo(f"{line.number}{':' if is_match else '-'}{line.text}")
        previous = line.number
    if result.more:
        click.secho(f"(stopped after {max_count} matching lines)", err=True, dim=True)
    if not result.matches:
        sys.exit(1)  # like grep: no match


@artifacts_group.command("clean")
@click.option("--older-than", "older_than", help="Only sessions untouched for this long "
              "(such as 7d, 12h).",
              callback=lambda _ctx, _param, v: None if v is None else parse_duration(v))
@click.option("--session", help="Only this session.")
@click.option("--json", "as_json", is_flag=True, help="Print what was deleted as JSON.")
@pass_state
def clean_command(state: AppState, older_than: float | None, session: str | None,
                  as_json: bool) -> None:
    """Delete sessions and their artifacts (all of them unless filtered)."""
    if session is not None:
        validate_session_id(session)  # a typo is an error, not "deleted 0 sessions"
    report = storage_backend(state).clean(older_than=older_than, session=session)
    if as_json:
        click.echo(json.dumps(attrs.asdict(report), indent=2))
        return

    click.echo(f"deleted {_count(len(report.sessions), 'session')}, "
               f"{_count(report.artifacts, 'artifact')} ({human_size(report.bytes)})")


def _progress() -> Any:
    """A rich progress bar on stderr when it is a terminal; otherwise nothing.

    Asks the stream itself, as ``trunc run`` does: rich counts FORCE_COLOR (which CI services
    set for colored logs) as a terminal, and would draw the bar into the log.
    """
    if not sys.stderr.isatty():
        return None
    err = console(stderr=True)
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                    TransferSpeedColumn(), console=err, transient=True)


@artifacts_group.command("export")
@click.option("--session", help="The session to export (needed when there are several).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Archive to write (default: <session>.tar.gz).")
@click.option("--json", "as_json", is_flag=True, help="Print what was exported as JSON.")
@pass_state
def export_command(state: AppState, session: str | None, output: Path | None,
                   as_json: bool) -> None:
    """Export a session and its artifacts to one archive."""
    root = storage_backend(state)
    sessions = root.sessions()
    if not sessions:
        raise click.ClickException(f"nothing to export: there are no sessions in {root.location}")
    if session is None:
        if len(sessions) != 1:
            names = ", ".join(s.id for s in sessions) or "none"
            raise click.UsageError(f"--session is needed: there are {len(sessions)} sessions "
                                   f"({names})")
        session = sessions[0].id
    info = next((s for s in sessions if s.id == session), None)
    if info is None:
        raise click.ClickException(f"no session {session!r} in {root.location}")
    output = output or Path(f"{session}.tar.gz")
    bar = _progress()
    if bar is None:
        report = export_session(root.session(session), output)
    else:
        with bar:
            task = bar.add_task("export", total=info.bytes)
            report = export_session(root.session(session), output,
                                    progress=lambda n: bar.update(task, completed=n))
    if as_json:
        click.echo(json.dumps(attrs.asdict(report), indent=2))
        return
    click.echo(f"exported {_count(report.artifacts, 'artifact')} of session {report.session} "
               f"to {report.path}")


@artifacts_group.command("import")
@click.argument("archive", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--session", help="Import into this session (default: the exported one).")
@click.option("--json", "as_json", is_flag=True, help="Print what was imported as JSON.")
@pass_state
def import_command(state: AppState, archive: Path, session: str | None,
                   as_json: bool) -> None:
    """Import an archive made by ``trunc artifacts export``; artifact ids are kept."""
    truncator = state.truncator()
    root = truncator.store.backend
    # An artifact of any tool may be in the archive: the largest limit any tool has.
    tools = (None, *BUILTIN_TOOL_POLICIES, *truncator.config.tools)
    limit = max(truncator.policy(tool).max_artifact_size for tool in tools)
    bar = _progress()
    if bar is None:
        report = import_archive(root, archive, session=session, max_artifact_size=limit)
    else:
        with bar:
            task = bar.add_task("import", total=None)  # content bytes: unknown until read
            report = import_archive(root, archive, session=session, max_artifact_size=limit,
                                    progress=lambda n: bar.update(task, completed=n))
    if as_json:
        click.echo(json.dumps(attrs.asdict(report), indent=2))
        return
    click.echo(f"imported {_count(len(report.imported), 'artifact')} into session "
               f"{report.session}"
               + (f" ({len(report.skipped)} already there)" if report.skipped else ""))
