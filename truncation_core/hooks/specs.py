"""The hooks that carry truncation-core's pipeline.

For one tool result that is over its limit, a :class:`~truncation_core.Truncator` calls:

1. ``select_strategy`` — which strategy cuts this result;
2. ``store_artifact`` — where the full content is kept (when ``spill`` is on);
3. ``truncate`` — the strategy cuts the content to the budget; while fitting its output it
   renders each omission marker through
4. ``format_marker``.

``provides`` is called once, when the plugin manager is built, to learn the names of the
strategies and storage backends that plugins make available. ``register_commands`` is called
once, when the ``trunc`` command line starts, to add commands to it.

Content within its limits never reaches a hook. An implementation that raises does not fail
the tool call: the processor falls back to the built-ins and says so (see
:mod:`truncation_core.hooks.failures`), unless ``plugins.strict`` is on.

Plugin authors: import :data:`truncation_core.hookimpl` and implement any of these with the
same function name. You may accept any subset of a hook's arguments (pluggy passes only the ones
you name), so hooks can gain arguments without breaking you. Call order is LIFO by registration:
explicitly passed plugins, then project plugins named in config, then installed entry-point
plugins, then the built-ins, which are all ``trylast`` so that any other plugin wins. See
docs/hooks.md for the lifecycle diagram and examples.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import click

    from truncation_core.types.artifacts import ArtifactInfo
    from truncation_core.types.cuts import ContentFacts, Cut, Marker
    from truncation_core.types.markers import MarkerRenderer
    from truncation_core.types.models import Budget, Provides
    from truncation_core.types.policy import Policy
    from truncation_core.types.salient import SalientPattern, SalientRecord, SalientUnit
    from truncation_core.types.storage import ArtifactStore, ArtifactWriter
    from truncation_core.types.strategy import IncrementalCut

PROJECT_NAME = "truncation_core"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
#: Marker for hook implementations: ``@hookimpl`` or ``@hookimpl(trylast=True)`` etc.
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def provides() -> Provides | None:
    """Declare the strategy and storage backend names this plugin makes available.

    Called once per :class:`~truncation_core.Truncator`, when its plugin manager is built. All
    results are collected. Configuration is checked against the union of the declared names,
    so an unknown ``strategy`` or ``store.backend`` is an error with a did-you-mean
    suggestion, and ``trunc plugins`` lists what each plugin provides.

    :returns: a :class:`~truncation_core.types.models.Provides`, or None if the plugin provides no
        names (for example a plugin that only restyles markers).

    :called: once, when a Truncator is built.
    :cost: one call per plugin, per Truncator.

    .. versionadded:: 0.1

    Implementing this hook: declare every strategy your ``truncate`` handles and every backend
    name you map to a store factory, and in ``streamable`` the strategies whose ``truncate``
    reads only the first and last characters of its ``text`` (as
    :func:`~truncation_core.text.cut.cut_text` does): those also cut streams longer than the
    ends a stream keeps. Return a :class:`~truncation_core.types.models.Provides` or None;
    anything else (or a ``wrapper`` implementation) makes the plugin fail to load, with a
    warning that names it. A backend factory is called with the
    :class:`~truncation_core.types.policy.StoreConfig` and returns an
    :class:`~truncation_core.types.artifacts.ArtifactStore`.
    """


@hookspec(firstresult=True)
def select_strategy(
    tool: str | None,
    facts: ContentFacts,
    policy: Policy,
    context: Mapping[str, Any],
) -> str | None:
    """Choose the strategy that cuts one tool result.

    Stops at first non-None result, see firstresult.

    Called only for content over its limits. Plugins extend per-tool policies here: for
    example, pick ``tail`` for any tool whose name ends in ``_log``.

    :param tool: the tool name given to ``process``, or None.
    :param facts: the content's size in characters, bytes and lines, and whether it looks like
        JSON.
    :param policy: the effective per-tool policy (config, built-in tool policies and per-tool
        overrides already merged). ``policy.strategy`` is what configuration asks for.
    :param context: the keyword arguments given to ``process`` besides ``tool``.
    :returns: a strategy name, which must be one that some plugin ``provides``; or None to let
        the next implementation decide. The built-in implementation returns
        ``policy.strategy``, after sniffing structured content (see docs/strategies.md).

    :called: for each result over its limits, first.
    :cost: one call per cut result (nothing for results within limits).

    .. versionadded:: 0.1
    """


@hookspec(firstresult=True)
def truncate(
    strategy: str,
    text: str,
    budget: Budget,
    facts: ContentFacts,
    policy: Policy,
    markers: MarkerRenderer,
) -> Cut | None:
    """Cut *text* to *budget* with the named strategy, and report exactly what was omitted.

    Stops at first non-None result, see firstresult.

    :param strategy: the strategy name chosen by ``select_strategy``.
    :param text: the whole content (already decoded when the tool returned bytes). For a
        stream longer than the ends it keeps, and only for a strategy declared ``streamable``
        in ``provides``, a :class:`~truncation_core.pipeline.ends.KeptEnds` that answers for
        the first and last characters (slicing and ``find`` there, ``len``, and line
        terminators counted anywhere).
    :param budget: the limits the output must satisfy, markers included: characters, and
        optionally UTF-8 bytes and lines. The stricter limit wins.
    :param facts: facts about *text*, including its line count.
    :param policy: the effective per-tool policy (``head_ratio``, ``direction`` ...).
    :param markers: renders omission markers through ``format_marker``; call
        ``markers.render(omission)`` for each region you leave out.
    :returns: a :class:`~truncation_core.types.cuts.Cut` whose ``text`` fits *budget*, or None
        when *strategy* is not yours. The processor checks the size of what you return and
        cuts with head_tail instead if it does not fit.

    :called: for each result over its limits, after the artifact is kept; again with less
        room when a highlights block is added.
    :cost: the cut itself: a few calls per cut result.

    .. versionadded:: 0.1

    Implementing this hook: return None unless ``strategy`` is a name you provide. The helpers
    in :mod:`truncation_core.text.cut` (``cut_text``, ``fit_prefix``, ``omission`` ...) do the
    measuring and line snapping for text strategies. Never raise on content.
    """


@hookspec(firstresult=True)
def format_marker(marker: Marker, policy: Policy) -> str | None:
    """Render one marker: an omission marker, or the artifact reference above the cut.

    Stops at first non-None result, see firstresult.

    :param marker: what to render. ``marker.kind`` is ``beginning``, ``middle`` or ``end`` for
        an omission (``marker.omission`` says what was left out, ``marker.artifact`` where it
        can be read back), or ``reference`` for the header shown when content exceeds
        ``artifact_threshold`` (above the cut, or above a short preview when
        ``policy.reference_preview`` is ``short``); or, for the notes that structured
        strategies put in place, the name of their template (``json_items``, ``json_keys``,
        ``json_key``, ``json_string``, ``json_depth``, ``jsonl_records``, ``ranked_results``,
        ``xml_elements``, ``xml_text``), with ``marker.element`` saying what the note stands
        for. Return the bare note text: the strategy escapes it (as a JSON string or an XML
        comment).
    :param policy: the effective per-tool policy; ``policy.marker`` holds the configured
        templates.
    :returns: the marker text, including any newlines that separate it from the content; or
        None to let the next implementation decide. The built-in implementation renders the
        templates from configuration.

    :called: for each marker and note, while a strategy fits its output.
    :cost: many calls per cut result: keep it cheap and free of side effects.

    .. versionadded:: 0.1

    Implementing this hook: the marker counts against the budget, so keep it short. It may be
    rendered several times while a strategy fits its output; it must not have side effects.
    """


@hookspec(firstresult=True)
def store_artifact(
    store: ArtifactStore,
    info: ArtifactInfo,
    policy: Policy,
) -> ArtifactWriter | None:
    """Open a writer that keeps the full content of one tool result.

    Stops at first non-None result, see firstresult.

    Called when content is cut and ``spill`` is on, before the strategy runs, so that markers
    can say where the omitted part is kept. The processor writes the content (in chunks, for
    streams) and calls ``commit()``; on any error it calls ``abort()`` and degrades to inline
    truncation whose marker says the full content could not be kept.

    :param store: where artifacts go now: the configured backend, bound to the session of
        the enclosing ``Truncator.session()`` if any.
    :param info: the tool, tool call id, server, summary, content type and size.
    :param policy: the effective per-tool policy.
    :returns: an :class:`~truncation_core.types.artifacts.ArtifactWriter`, or None to let the next
        implementation decide. The built-in implementation returns ``store.writer(info)``.
        The processor wraps whatever writer is returned so that it keeps at most
        ``policy.max_artifact_size`` bytes (see :mod:`truncation_core.artifacts.limit`).

    :called: when a cut result's content is kept (``spill`` on), before the strategy cuts.
    :cost: one call per kept artifact.

    .. versionadded:: 0.1

    Implementing this hook: a ``wrapper=True`` implementation can wrap the writer that the
    others return, for example to redact secrets or to tee to a second store.
    """


@hookspec
def stream_cutter(
    tool: str | None,
    policy: Policy,
    context: Mapping[str, Any],
) -> IncrementalCut | None:
    """Offer an incremental truncator for a stream: the seam for structured data in streams.

    All results are collected. Called once when :meth:`Truncator.stream
    <truncation_core.Truncator.stream>` opens a stream, before any content arrives. A stream
    keeps only the first and the last characters of its content, which is all the text
    strategies need; a strategy that needs the whole content (JSON elements, a plugin's own)
    can cut a stream only through an
    :class:`~truncation_core.types.strategy.IncrementalCut` fed as the content arrives.

    :param tool: the tool name given to ``stream``, or None.
    :param policy: the effective per-tool policy.
    :param context: the keyword arguments given to ``stream`` besides ``tool``.
    :returns: an :class:`~truncation_core.types.strategy.IncrementalCut`
        (``strategy``, ``feed(text)``, ``finish(text=, budget=, facts=, markers=)``), or
        None. When the stream ends over its limit and ``select_strategy`` picks the cutter's
        ``strategy``, its ``finish`` produces the cut from the stream's kept ends; if it
        returns None or output over the budget, the stream cuts as the strategy's
        ``truncate`` would if it is streamable, else as text. A stream short enough to be
        held whole is cut by ``truncate`` instead, exactly as
        :meth:`~truncation_core.Truncator.process` would cut it.

    :called: when a stream opens.
    :cost: one call per stream; the cutter is fed every chunk.

    .. versionadded:: 0.1

    Implementing this hook: return a fresh object per stream, and keep its memory bounded by
    the budget (a deque of the last elements, not a list of all of them). ``feed`` receives
    decoded text and must never raise on content: on input you cannot handle, stop
    collecting and return None from ``finish``. The strategy is chosen only at the end (from
    the final sizes), so a cutter is fed every stream it is offered for; decide early and
    cheaply whether the content is yours, and return False from ``feed`` once you need no
    more of it (the stream then stops feeding you, and spares decoding a bytes stream for
    you). ``finish`` may be called more than once, with smaller budgets (a highlights block
    takes room from the first cut): answer each time.
    """


@hookspec
def salient_patterns(tool: str | None, policy: Policy) -> Iterable[SalientPattern] | None:
    """Add patterns for the lines worth lifting from an omitted part into the highlights block.

    All results are collected. Called once per tool, the first time the tool's patterns are
    needed (a result cut, or the first text written to a stream, with ``highlights`` on); the
    patterns of all plugins are compiled together.

    :param tool: the tool name, or None. Return patterns for the tools whose output you know
        (a ``cargo`` plugin: ``test result:`` lines for ``execute_command``).
    :param policy: the effective per-tool policy (``policy.highlights`` is the most lines
        shown).
    :returns: :class:`~truncation_core.types.salient.SalientPattern` objects
        (``name``, ``keywords``, ``regex``, ``rank``, ``header``), or None. The built-in
        implementations return generic patterns for error and exception headers,
        tracebacks, ``FAILED``, ``error:``, ``panic``, warnings, test summaries, exit
        statuses and CI runners' last lines (:mod:`truncation_core.builtins.salient`), and
        the failure and summary lines of tool families: compilers and linters, TAP, JVM,
        .NET, browsers, sanitizers, Ruby, R, Haskell, Xcode (the
        ``truncation_core.builtins.salient_*`` modules).

    :called: the first time a tool's highlights are needed.
    :cost: one call per tool, per Truncator; the patterns then scan every cut result of the tool.

    .. versionadded:: 0.1

    Why patterns and not code: extraction must also run over streams, whose omitted middle
    is never held in memory. Patterns can be matched line by line as the stream goes by, and
    one engine applies them the same way to ``process`` and to streams, counts the block
    against the budget, and keeps the result deterministic. A plugin that wants different
    highlights for a tool returns different patterns; one that wants none sets
    ``highlights: 0`` for it in configuration.

    Implementing this hook: keywords are literal and case-sensitive; every line you want must
    contain one of them (they are what makes scanning fast), and the regex then picks the
    lines you mean. Lines are matched on their first 512 characters, ANSI escapes removed.
    Rank 0 is shown first (summaries, final statuses), then 1 (errors), then 2 and above
    (details and warnings, shown only when they are few). For a header with no fixed word
    whose next line has one (ruff's ``F821 Undefined name`` over `` --> app.py:7:53``), match
    the next line and give ``header``, a regex for the line above: that line is then the
    salient one.
    """


@hookspec
def salient_units(tool: str | None, policy: Policy) -> Iterable[SalientUnit] | None:
    """Add units: the lines around a salient line that are shown with it, as one unit.

    All results are collected. Called once per tool, with ``salient_patterns``, the first
    time the tool's patterns are needed; the units of all plugins apply together.

    A pattern finds one line, but a header without its location is half useless:
    ``error[E0308]: mismatched types`` wants its ``--> src/lib.rs:87:5``, a Python exception
    its innermost ``File "...", line N`` and the source line under it, ``not ok 3`` the
    ``location:`` and diff lines of its YAML diagnostics. A unit names the patterns (or
    records) whose lines it extends, how far it looks (``above``, ``below``: up to 64 lines
    each way) and a ``choose`` function that picks the lines to keep from those it is shown.

    :param tool: the tool name, or None.
    :param policy: the effective per-tool policy.
    :returns: :class:`~truncation_core.types.salient.SalientUnit` objects (``name``,
        ``patterns``, ``above``, ``below``, ``choose``), or None. The built-in
        implementations keep: a compiler's location and source line under its error header
        (gcc, clang, rustc, ruff, GHC, mypy's wrapped lines and notes), the innermost frame
        and its source line above a Python exception, TAP's YAML diagnostics, a sanitizer
        report's access and first frame in the program's own code, the file header above an
        eslint problem, and more, per family (the ``truncation_core.builtins.salient*``
        modules).

    :called: with ``salient_patterns``, the first time a tool's highlights are needed.
    :cost: one call per tool, per Truncator; ``choose`` then runs for the first matches of
        every group.

    .. versionadded:: 0.1

    Why a hook of its own, and data with a function rather than a function over the text:
    a stream never holds its omitted middle, so the engine gives ``choose`` the lines
    around each match as they pass (:class:`~truncation_core.types.salient.UnitLines`:
    the matching line, the lines ``above`` and ``below`` it, nearest first, each its first
    512 characters with ANSI escapes removed), and ``process()`` and streams give the same
    block. ``choose`` returns offsets: ``-1`` is the line right above, ``1`` the line right
    below.

    Implementing this hook: ``choose`` must be a pure function of what it is given (the block
    is deterministic), cheap (it runs for the first matches of every group), and must not
    raise; if it does, the unit adds no lines to that match and the failure is logged with
    the unit's name. :func:`~truncation_core.types.salient.lines_below` and
    :func:`~truncation_core.types.salient.lines_above` make the usual ``choose``: take
    the lines a regex finds, stop at another, or after so many. Unit lines are shown only
    when they lie in the omitted part (the others are in sight already), and count against
    the block's share of the budget like any line.
    """


@hookspec
def salient_records(tool: str | None, policy: Policy) -> Iterable[SalientRecord] | None:
    """Add record rules: which records of a JSON Lines log are worth lifting into the block.

    All results are collected. Called once per tool, with ``salient_patterns``.

    In a structured log the words that make a text line salient are field names and values
    anywhere in the record (``"level":"error"``, pino's ``"level":50``, ``"severity":
    "ERROR"``, an ``"err": {...}`` object after a long stack trace), so records are judged
    parsed: a line that starts with ``{``, holds one of a rule's ``keywords`` and is at most
    64 KiB long is parsed, and if it is a JSON object, the rules decide, in rank order (the
    first whose keyword the line holds and whose ``test(record)`` is true); the patterns are
    not tried on it. A line that does not parse is matched by the patterns as any line.

    :param tool: the tool name, or None.
    :param policy: the effective per-tool policy.
    :returns: :class:`~truncation_core.types.salient.SalientRecord` objects (``name``,
        ``keywords``, ``test``, ``rank``), or None. The built-in implementation
        (:mod:`truncation_core.builtins.salient_logs`) takes records whose level or
        severity is error, fatal or critical (by name, or pino's and bunyan's numbers 50 and
        above), and records with an ``err``, ``error``, ``exception``, ``exc_info`` or
        ``stack`` field that holds something.

    :called: with ``salient_patterns``, the first time a tool's highlights are needed.
    :cost: one call per tool, per Truncator; ``test`` then runs for each line that starts
        with ``{`` and holds one of the rule's keywords.

    .. versionadded:: 0.1

    A record is shown cut as a record: each string value longer than 120 characters (a
    stack trace, a payload) keeps its start and its end with the cut marked inside the
    string, and the line is clipped like any other; so the block shows the level, the
    message and the error's own fields in the record's field order.

    Implementing this hook: ``keywords`` are literal and case-sensitive, and what keeps it
    fast: only lines holding one are parsed. ``test`` gets the parsed object (a ``dict``),
    must be a pure function of it, and may return False for records it cannot judge; an
    exception counts as False.
    """


@hookspec
def register_commands(cli: click.Group) -> None:
    """Add commands to the ``trunc`` command line.

    All results are collected (there are none: the implementation adds commands to *cli*).
    Called once per run of ``trunc``, after plugins load with the configuration's plugin
    settings (the file given with ``trunc --config``, or the one found from the working
    directory), before a command that is not built in is dispatched, or when ``trunc --help``
    lists the commands. A built-in command (``trunc apply``, ``trunc run`` ...) is dispatched
    without loading plugins for commands, so that its start-up stays cheap. Never called by a
    :class:`~truncation_core.Truncator`.

    :param cli: the group the plugin's commands go into (a :class:`click.Group`): add
        commands or groups with ``cli.add_command(...)`` or the ``@cli.command()`` /
        ``@cli.group()`` decorators, and they become ``trunc <name>``. A command reaches the
        configuration through ``click.get_current_context().obj`` (its ``config_path``, and
        ``truncator()`` to build the configured Truncator).
    :returns: None; what counts is what the implementation adds to *cli*.

    :called: when ``trunc`` runs a command that is not built in, or lists the commands.
    :cost: one call per plugin, per run of ``trunc``; none for built-in commands.

    .. versionadded:: 0.1

    Implementing this hook: keep the module that holds it cheap to import, and import what a
    command needs (a web framework, an SDK) inside the command. A command named like a
    built-in one, or like one that an earlier plugin added, is skipped with a warning. An
    implementation that raises is reported on stderr by plugin name, without the exception's
    message, and ``trunc`` goes on without that plugin's commands (with ``plugins.strict``
    on, it stops with that error instead).
    """
