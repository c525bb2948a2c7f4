"""The hooks that carry truncation-core's pipeline.

For one tool result that is over its limits, a :class:`~truncation_core.Truncator` calls:

1. ``select_strategy`` — which strategy cuts this result, unless the user named it;
2. ``store_artifact`` — where the full content is kept (when ``spill`` is on);
3. ``truncate`` — the strategy cuts the content to the budget; while fitting its output it
   renders each omission marker through
4. ``format_marker``;
5. ``salient_detector`` — the lines worth lifting from what was cut into the highlights
   block (asked once per tool).

``provides`` is called once, when the plugin manager is built, to learn the strategies,
storage backends and tokenizers that plugins make available. ``register_commands`` is called
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

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import click

    from truncation_core.types.artifacts import ArtifactInfo
    from truncation_core.types.cuts import ContentFacts, Cut, Marker
    from truncation_core.types.markers import MarkerRenderer
    from truncation_core.types.models import Budget, Provides
    from truncation_core.types.policy import Policy
    from truncation_core.types.salient import SalientDetector
    from truncation_core.types.storage import ArtifactStore, ArtifactWriter
    from truncation_core.types.strategy import Strategy

PROJECT_NAME = "truncation_core"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
#: Marker for hook implementations: ``@hookimpl`` or ``@hookimpl(trylast=True)`` etc.
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def provides() -> Provides | None:
    """Declare the strategies, storage backends and tokenizers this plugin makes available.

    Called once per :class:`~truncation_core.Truncator`, when its plugin manager is built. All
    results are collected. Configuration is checked against the union of the declared names,
    so an unknown ``strategy``, ``store.backend`` or ``tokenizer`` is an error with a
    did-you-mean suggestion, and ``trunc plugins`` lists what each plugin provides.

    :returns: a :class:`~truncation_core.types.models.Provides`, or None if the plugin provides
        nothing by name (for example a plugin that only restyles markers).

    :called: once, when a Truncator is built.
    :cost: one call per plugin, per Truncator.

    .. versionadded:: 0.1

    Implementing this hook: a strategy is one
    :class:`~truncation_core.types.strategy.Strategy` object: its ``name``, a one-line
    ``description``, its ``cut`` function, whether that cut reads only the ends of its text
    (``streamable``), and optionally a ``stream_cutter`` for long streams. A backend factory is
    called with the :class:`~truncation_core.types.policy.StoreConfig` and returns an
    :class:`~truncation_core.types.storage.ArtifactStore`; a tokenizer factory takes no
    argument and returns a :class:`~truncation_core.types.tokenizer.Tokenizer`. Return a
    :class:`~truncation_core.types.models.Provides` or None; anything else (or a ``wrapper``
    implementation) makes the plugin fail to load, with a warning that names it. A name that a
    plugin loaded later provides again is theirs (a warning says so when neither is built in).
    """


@hookspec(firstresult=True)
def select_strategy(
    tool: str | None,
    facts: ContentFacts,
    policy: Policy,
    context: Mapping[str, Any],
) -> str | None:
    """Choose the strategy that cuts one tool result, when the user did not name it.

    Stops at first non-None result, see firstresult.

    Called only for content over its limits, and never for a tool whose strategy the user
    named: ``tools.<name>.strategy`` in the configuration, or ``--strategy`` on the command
    line (``policy.explicit_strategy``); the user's word is the strategy then, whatever the
    plugins would say. Plugins extend the default choice here: for example, pick ``tail`` for
    any tool whose name ends in ``_log``. The metadata says who chose
    (``strategy_chosen_by``: ``user``, ``plugin <name>`` or ``default``).

    :param tool: the tool name given to ``process``, or None.
    :param facts: the content's size in characters, bytes and lines, and whether it looks like
        JSON.
    :param policy: the effective per-tool policy (config, built-in tool policies and per-tool
        overrides already merged). ``policy.strategy`` is what configuration asks for.
    :param context: the keyword arguments given to ``process`` besides ``tool``.
    :returns: a strategy name, which must be one that some plugin ``provides``; or None to let
        the next implementation decide. The built-in implementation returns
        ``policy.strategy``, after sniffing structured content (see docs/strategies.md).

    :called: for each result over its limits whose strategy the user did not name, first.
    :cost: one call per cut result (nothing for results within limits).

    .. versionadded:: 0.1

    Implementing this hook: return None for the tools and content you have no opinion on. It
    may not be a ``wrapper``: the metadata names the plugin whose answer is used, so each
    implementation answers for itself (a wrapper makes the plugin fail to load).
    """


@hookspec(firstresult=True)
def truncate(
    strategy: Strategy,
    text: str,
    budget: Budget,
    facts: ContentFacts,
    policy: Policy,
    markers: MarkerRenderer,
) -> Cut | None:
    """Cut *text* to *budget* with *strategy*, and report exactly what was omitted.

    Stops at first non-None result, see firstresult.

    The built-in implementation asks the strategy: ``strategy.cut(text, budget=...,
    facts=..., policy=..., markers=...)``. A plugin implements this hook to take over or wrap
    the cut of a strategy, its own or another's; to add a strategy, provide a
    :class:`~truncation_core.types.strategy.Strategy` instead (see ``provides``).

    :param strategy: the strategy chosen (by the user, ``select_strategy`` or the default):
        ``strategy.name`` names it.
    :param text: the whole content (already decoded when the tool returned bytes). For a
        stream longer than the ends it keeps, and only for a ``streamable`` strategy, a
        :class:`~truncation_core.pipeline.ends.KeptEnds` that answers for the first and last
        characters (slicing and ``find`` there, ``len``, and line terminators counted
        anywhere).
    :param budget: the limits the output must satisfy, markers included: characters, and
        optionally UTF-8 bytes and lines. The stricter limit wins.
    :param facts: facts about *text*, including its line count.
    :param policy: the effective per-tool policy (``head_ratio``, ``direction`` ...).
    :param markers: renders omission markers through ``format_marker``; call
        ``markers.render(omission)`` for each region you leave out.
    :returns: a :class:`~truncation_core.types.cuts.Cut` whose ``text`` fits *budget*, or None
        to let the next implementation cut. The processor checks the size of what is
        returned and cuts with head_tail instead if it does not fit.

    :called: for each result over its limits, after the artifact is kept; again with less
        room when a highlights block is added.
    :cost: the cut itself: a few calls per cut result.

    .. versionadded:: 0.1

    Implementing this hook: return None unless ``strategy.name`` is one you cut. A
    ``wrapper=True`` implementation sees the cut the others made (to audit or restyle it).
    The helpers in :mod:`truncation_core.text.cut` (``cut_text``, ``fit_prefix``,
    ``omission`` ...) do the measuring and line snapping for text strategies. Never raise on
    content.
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
def salient_detector(tool: str | None, policy: Policy) -> SalientDetector | None:
    """Add a highlights detector: the lines worth lifting from an omitted part into the
    highlights block, and the lines shown with them.

    All results are collected. Called once per tool, the first time the tool's highlights are
    needed (a result cut, or a stream whose text outgrows the head it keeps, with
    ``highlights`` on); the detectors of all plugins are compiled together into one matcher
    for the tool.

    A :class:`~truncation_core.types.salient.SalientDetector` is one declaration of three
    parts (each optional):

    - ``patterns``: :class:`~truncation_core.types.salient.SalientPattern` objects (``name``,
      ``keywords``, ``regex``, ``rank``, ``header``): which lines are salient. Keywords are
      literal and case-sensitive; every line you want must contain one of them (they are what
      makes scanning fast), and the regex then picks the lines you mean. Lines are matched on
      their first 512 characters, ANSI escapes removed. Rank 0 is shown first (summaries,
      final statuses), then 1 (errors), then 2 and above (details and warnings, shown only
      when they are few). For a header with no fixed word whose next line has one (ruff's
      ``F821 Undefined name`` over `` --> app.py:7:53``), match the next line and give
      ``header``, a regex for the line above: that line is then the salient one.
    - ``units``: :class:`~truncation_core.types.salient.SalientUnit` objects (``name``,
      ``patterns``, ``above``, ``below``, ``choose``): the lines around a salient line shown
      with it, as one unit (``error[E0308]: mismatched types`` with its ``--> src/lib.rs:87:5``).
      A unit names the patterns or records (of any detector) whose lines it extends, and how
      far it looks (up to 64 lines each way); ``choose`` gets those lines as they pass
      (:class:`~truncation_core.types.salient.UnitLines`, nearest first) and returns offsets:
      ``-1`` is the line right above, ``1`` the line right below. It must be a pure, cheap
      function that does not raise (if it does, the unit adds no lines to that match and the
      failure is logged with the unit's name); ``lines_below`` and ``lines_above`` make the
      usual one. Unit lines are shown only when they lie in the omitted part.
    - ``records``: :class:`~truncation_core.types.salient.SalientRecord` objects (``name``,
      ``keywords``, ``test``, ``rank``): which records of a JSON Lines log are salient. A line
      that starts with ``{``, holds one of a rule's ``keywords`` and is at most 64 KiB long is
      parsed, and if it is a JSON object, the rules decide, in rank order (the first whose
      keyword the line holds and whose ``test(record)`` is true); the patterns are not tried
      on it. ``test`` gets the parsed ``dict``, must be a pure function of it, and an
      exception counts as False. A record is shown cut as a record: long string values keep
      their start and end, with the cut marked inside the string.

    :param tool: the tool name, or None. Return a detector for the tools whose output you
        know (a ``cargo`` plugin: ``test result:`` lines for ``execute_command``).
    :param policy: the effective per-tool policy (``policy.highlights`` is the most lines
        shown).
    :returns: a :class:`~truncation_core.types.salient.SalientDetector`, or None. The built-in
        detector (:mod:`truncation_core.builtins.highlights`) finds error and exception
        headers, tracebacks, ``FAILED``, ``error:``, ``panic``, warnings, test summaries,
        exit statuses and CI runners' last lines (``builtins/salient.py``), the failure and
        summary lines of tool families (compilers and linters, TAP, JVM, .NET, browsers,
        sanitizers, Ruby, R, Haskell, Xcode) and the error records of structured logs (the
        ``builtins/salient_*.py`` modules).

    :called: the first time a tool's highlights are needed.
    :cost: one call per tool, per Truncator; the patterns then scan every cut result of the
        tool, ``choose`` runs for the first matches of every group, and ``test`` for each
        record line holding a keyword.

    .. versionadded:: 0.1

    Why data and not a function over the text: extraction must also run over streams, whose
    omitted middle is never held in memory. Patterns are matched line by line as the stream
    goes by, units see the lines around each match as they pass, and one engine applies them
    the same way to ``process`` and to streams, counts the block against the budget, and
    keeps the result deterministic. A plugin that wants different highlights for a tool
    returns a different detector; one that wants none sets ``highlights: 0`` for it in
    configuration.
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
