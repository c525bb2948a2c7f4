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
    so an unknown ``strategy`` (``tools.<name>.strategy``, ``default_strategy``,
    ``--strategy``), ``store.backend`` or ``tokenizer`` is an error with a did-you-mean
    suggestion, and ``trunc plugins`` lists what each plugin provides.

    :returns: a :class:`~truncation_core.types.models.Provides`
        (``Provides(strategies=[Strategy, ...], backends={name: factory},
        tokenizers={name: factory})``), or None if the plugin provides nothing by name (for
        example a plugin that only restyles markers). Anything else, a malformed ``Provides``
        (a strategy that is not a ``Strategy``, a name given twice), an exception, or a
        ``wrapper`` implementation makes the plugin fail to load, with a ``PluginLoadWarning``
        that names it (an error with ``plugins.strict``).

    :called: once, when a Truncator is built.
    :cost: one call per plugin, per Truncator.

    .. versionadded:: 0.1

    Implementing this hook:

    - a strategy is one :class:`~truncation_core.types.strategy.Strategy` object (below);
    - a backend factory is called with the
      :class:`~truncation_core.types.policy.StoreConfig` and returns an
      :class:`~truncation_core.types.storage.ArtifactStore`;
    - a tokenizer factory takes no argument and returns a
      :class:`~truncation_core.types.tokenizer.Tokenizer`. It is called once per Truncator,
      the first time a policy names it, so it should return at once and load its vocabulary
      on first use (`adding a tokenizer <docs/tokens.md#adding-a-tokenizer>`_).

    A plugin may provide a name that a built-in provides (``tail``, say) to replace it. For a
    name that two plugins provide, the one loaded later wins; for a strategy, a
    ``PluginLoadWarning`` names both, since two plugins claiming one name is most likely an
    accident.

    .. rubric:: Strategies

    A :class:`~truncation_core.types.strategy.Strategy` (from ``truncation_core.plugin``) is
    made of:

    - ``name``: what configuration (``tools.<name>.strategy``, ``default_strategy``,
      ``--strategy``) and ``select_strategy`` call it;
    - ``description``: one line, for ``trunc plugins`` and the errors that list what is
      available;
    - ``cut(text, *, budget, facts, policy, markers) -> Cut | None``: the cut, which the
      built-in ``truncate`` calls (see it for the arguments and what to return); None when it
      cannot cut this content, and ``head_tail`` cuts it, with a note. It must not raise on
      content;
    - ``streamable`` (default False): True when ``cut`` reads only the first and last
      characters of ``text`` (slicing and ``find``/``rfind`` near its ends, ``len``, and its
      line terminators counted anywhere), as ``cut_text`` does: it is then given a long
      stream's :class:`~truncation_core.pipeline.ends.KeptEnds` as ``text``, and cuts streams
      of any length;
    - ``stream_cutter`` (default None): ``stream_cutter(policy) -> IncrementalCut | None``,
      for a strategy that is not streamable but can cut a long stream as it arrives (below).

    A strategy with only its ``cut`` cuts every result, and every stream short enough to be
    held whole, exactly as ``process`` would; a longer stream is cut by ``head_tail`` in the
    same bounded memory, with a note saying so.

    .. rubric:: Strategies that cut long streams as they arrive

    A stream keeps only the first and last characters of its content, which is all the text
    strategies need. A strategy that needs the whole content (JSON elements, a plugin's own)
    cuts a long stream only through an :class:`~truncation_core.types.strategy.IncrementalCut`
    that its ``stream_cutter`` makes when the stream's text first outgrows the head the
    stream keeps (a stream that never does is cut from its whole text, without a cutter),
    and before the strategy is chosen (``select_strategy`` is asked at the end). So it
    returns a fresh cutter when the strategy may be chosen for ``policy.tool``, else None. An
    ``IncrementalCut`` has two methods:

    - ``feed(text) -> bool | None``, called with all of the text from its start (what the
      head holds, then every chunk), decoded, so that it sees exactly what ``process`` would
      (bytes that are not UTF-8 as U+FFFD, a UTF-8 sequence split across chunks whole). It
      never raises on content. It returns False once it needs
      no more of the content (the content is not for it, or it knows its cut): the stream
      then stops feeding it, and stops decoding a bytes stream for it; ``finish`` is still
      called.
    - ``finish(*, text, budget, facts, markers) -> Cut | None``: when the stream ends over its
      limit and its strategy is chosen, the cut of everything fed, within *budget*. ``text``
      is then the stream's kept ends (a ``KeptEnds``), not the whole text, so that the cutter
      can fall back to a text cut exactly as ``process`` would. It may be called more than
      once, with smaller budgets (a highlights block takes room from the first cut), and
      answers each time. If it returns None, or output over the budget, the stream cuts as
      text and the notes say so.

    Keep the cutter's memory bounded by the budget, not by the input (a deque of the last
    elements, not a list of all of them), and decide early and cheaply whether the content
    is yours. A ``stream_cutter`` that raises or returns something without ``feed`` and
    ``finish``, and a cutter that raises, are a plugin's bugs: the stream cuts as text, and
    the notes name the plugin (`when a plugin raises <docs/hooks.md#when-a-plugin-raises>`_).
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

    Called only for content over its limits, and only when the user did not name the tool's
    strategy. This is where a plugin extends per-tool policies: for example, pick ``tail``
    for any tool whose name ends in ``_log``.

    The user's word wins. For a tool whose strategy the user named, ``tools.<name>.strategy``
    in the configuration or ``--strategy`` on the command line (``policy.explicit_strategy``),
    no implementation is asked: the pipeline cuts with the user's strategy, whatever plugins
    are installed. The metadata says who chose, in ``strategy_chosen_by``: ``user``;
    ``plugin <name>``, the plugin whose implementation answered; or ``default``, the built-in
    implementation's answer, or the policy's strategy when a plugin's answer was not used.

    :param tool: the tool name given to ``process``, or None.
    :param facts: what is known of the content, computed once and shared by every hook:

        - ``chars``, ``lines``, and ``terminators`` (the line terminators: ``lines`` minus one
          when the text ends mid-line);
        - ``bytes``: the size in UTF-8, or of the tool's own bytes, measured on first use (for
          text that is not ASCII, a full encode);
        - ``looks_like_json`` and ``looks_like_xml``: sniffs of the first and last characters
          (``{`` or ``[`` ... ``}`` or ``]``; ``<`` ... ``>``), not parses;
        - ``from_bytes``: the tool returned bytes;
        - ``parsed``: the content parsed as JSON (its ``format``, ``json``, ``jsonl`` or None,
          its ``value``, and the ``error`` when it is not JSON), on first use: whoever reads
          it first pays for the parse, and every hook shares it. A stream longer than its
          kept ends gives ``NOT_PARSED`` (its cutter parses at the end, if at all): the sniffs
          are exact for streams too;
        - ``byte_offset(char_offset)``: the offset in the original bytes of the point before
          a character, or None when it is not known.
    :param policy: the effective per-tool policy (config, built-in tool policies and per-tool
        overrides already merged). ``policy.strategy`` is what configuration asks for, and
        ``policy.tool_strategy`` is true when it comes from the tool's own policy (a built-in
        tool policy or ``tools.<name>.strategy``) rather than ``default_strategy``.
    :param context: the keyword arguments given to ``process`` besides ``tool``.
    :returns: a strategy name, which must be one that some plugin ``provides``; or None to let
        the next implementation decide. A name that no plugin provides is ignored, with a note
        in the metadata, in favour of ``policy.strategy``. The built-in implementation
        returns ``element`` for content that looks like JSON or XML when
        ``policy.sniffs_structure`` (``detect_structure`` is on, and no tool policy names a
        strategy, or only a built-in one meant for text), and ``policy.strategy`` otherwise
        (`when element is chosen <docs/structured.md#when-element-is-chosen>`_).

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
    :param budget: the limits the output must satisfy, markers included: ``chars``, and
        optionally ``bytes`` (UTF-8) and ``lines``. The output must satisfy every one of
        them: ``budget.admits(measure(out))``.
    :param facts: facts about *text*, as ``select_strategy`` gets them; ``facts.terminators``
        lets you count omitted lines without a second pass over the text.
    :param policy: the effective per-tool policy (``head_ratio``, ``direction`` and the other
        settings).
    :param markers: renders markers through ``format_marker``: call
        ``markers.render(omission)`` for each region you leave out, and
        ``markers.worst_case(position)`` to reserve room before cutting (the marker of the
        largest omission possible at ``beginning``, ``middle`` or ``end``: with the default
        templates, the real one is never longer).
    :returns: a :class:`~truncation_core.types.cuts.Cut` whose ``text`` fits *budget*, or None
        to let the next implementation cut. A ``Cut`` is made of:

        - ``text``: what the model sees, markers included;
        - ``omitted_chars`` and ``omitted_lines``: the characters of the original that are
          not in the output, and the lines not in it at all;
        - ``omissions``: the omitted regions, in order (each an
          :class:`~truncation_core.types.cuts.Omission`, as ``omission(...)`` describes
          it), for strategies that cut contiguous text;
        - ``strategy``: the strategy that really produced the output, when it differs from
          the one asked for;
        - ``notes``: remarks for people, such as why a fallback was taken;
        - ``details``: machine-readable, strategy-specific details (JSON-serialisable), which
          reach ``metadata.details``.

        The processor measures what is returned: output over the budget, or anything but a
        well-formed ``Cut`` (negative counts, say), is discarded, and the content is cut with
        ``head_tail`` instead, with a note in the metadata.

    :called: for each result over its limits, after the artifact is kept; again with less
        room when a highlights block is added.
    :cost: the cut itself: a few calls per cut result.

    .. versionadded:: 0.1

    Implementing this hook: return None unless ``strategy.name`` is one you cut, and never
    raise on content. A ``wrapper=True`` implementation sees the cut the others made (to
    audit or restyle it). The helpers in :mod:`truncation_core.text.cut` do the measuring and
    line snapping for text strategies: ``cut_text``, the engine of the built-in text
    strategies, makes a head and tail cut that fits the budget with its marker, and
    ``fit_prefix``, ``fit_suffix`` and ``omission`` are its parts.
    """


@hookspec(firstresult=True)
def format_marker(marker: Marker, policy: Policy) -> str | None:
    """Render one marker: an omission marker, a structured strategy's note, or the artifact
    reference.

    Stops at first non-None result, see firstresult.

    :param marker: what to render, by ``marker.kind``:

        - ``beginning``, ``middle`` or ``end``: an omission marker of a text strategy.
          ``marker.omission`` (an :class:`~truncation_core.types.cuts.Omission`) says what
          was left out: ``chars``, ``lines`` (the lines wholly inside the region),
          ``first_line``, ``last_line``, ``start_byte`` and ``end_byte``, the region in the
          original output; and ``marker.omission.in_artifact`` (an
          :class:`~truncation_core.types.cuts.ArtifactSpan`: ``start_line``, ``end_line``,
          ``start_byte``, ``end_byte``, ``complete``) the numbers that read it back from the
          artifact. Show those: they differ from the output's when the artifact is itself
          cut (over ``max_artifact_size``), ``complete`` is False when it keeps only part of
          the region, and ``in_artifact`` is None when it keeps none of it. They are the
          numbers the metadata gives (`resume coordinates
          <docs/streams.md#resume-coordinates>`_).
        - ``reference``: the artifact reference, one line shown above the cut of content
          over ``artifact_threshold`` (above a short preview when
          ``policy.reference_preview`` is ``short``), or, in its one-line form, inside a
          JSON, JSON Lines or XML document, which stays valid. The cut's markers say how to
          read back what they replace; the reference names the artifact.
          ``marker.omission`` is None.
        - ``json_items``, ``json_keys``, ``json_key``, ``json_string``, ``json_depth``,
          ``jsonl_records``, ``ranked_results``, ``xml_elements`` or ``xml_text``: a note
          that a structured strategy puts in place of what it leaves out. ``marker.element``
          (an :class:`~truncation_core.types.cuts.ElementOmission`: ``kind``, ``count``,
          ``total``, ``unit``, ``path``) says what the note stands for, and
          ``marker.omission`` is None. Return the bare note text: the strategy escapes it (as
          a JSON string, or inside an XML comment), so any text keeps the output valid.
        - ``rest`` and ``rest_key``: the note a structured cut adds, when the content was
          kept, to say how to read what it left out, and its key in a JSON object
          (`reading the rest <docs/structured.md#reading-the-rest>`_); ``marker.artifact``
          is set and ``marker.omission`` None. Bare text, escaped by the strategy. Name the
          artifact tools as ``policy.artifact_tools.name("get_artifact")`` does: the model
          sees those names.

        Every marker also has ``artifact`` (where the full content is kept, an
        :class:`~truncation_core.types.artifacts.ArtifactRef`; None when it is not),
        ``artifact_error`` (why it could not be kept, when spilling failed), ``strategy``,
        ``tool``, ``original_chars`` and ``original_lines``.
    :param policy: the effective per-tool policy; ``policy.marker`` holds the configured
        templates.
    :returns: the marker text, including any newlines that separate it from the content; or
        None to let the next implementation decide. The built-in implementation renders the
        configured template named like the kind (`markers
        <docs/configuration.md#markers>`_), with, for an omission, the hint that says where
        the region is kept, or why it could not be.

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
    streams) and calls ``commit()``; if the writer fails, it calls ``abort()`` and degrades
    to inline truncation whose markers say the full content could not be kept. It wraps
    whatever writer is returned so that it keeps at most ``policy.max_artifact_size`` bytes:
    beyond that, the head and the tail, and the reference says the artifact is cut (see
    :mod:`truncation_core.artifacts.limit`).

    :param store: where artifacts go now: the configured backend, bound to the session of
        the enclosing ``Truncator.session()`` if any.
    :param info: what the processor knows of the content: ``tool``, ``tool_call_id``,
        ``server``, ``summary`` (one line, at most 100 characters), ``content_type``
        (``application/json`` or ``text/plain``), ``chars`` and ``lines`` (a stream's are
        known only at its end: see ``commit``).
    :param policy: the effective per-tool policy.
    :returns: an :class:`~truncation_core.types.storage.ArtifactWriter`, or None to let the
        next implementation decide. The built-in implementation returns
        ``store.writer(info)``. A writer has:

        - ``write(data)``: the next chunk of the content, as bytes;
        - ``commit(info=None) -> ArtifactRef``: publish the artifact atomically (a reader
          never sees a half-written one) and return its ref. *info*, when given, replaces
          the ``ArtifactInfo`` the writer was opened with: a stream opens its writer before
          it knows its size, line count or content type, and gives the final description
          when it ends;
        - ``abort()``: drop what was written; nothing becomes visible;
        - ``__enter__`` and ``__exit__``: used as a context manager, it aborts when the block
          is left uncommitted.

        :class:`~truncation_core.types.storage.WriterBase` (from ``truncation_core.plugin``)
        gives a writer all but the storing: subclasses implement ``_write(data)``,
        ``_commit(info)`` (given the replacement info, or None) and ``_abort()``, and it
        makes ``commit`` and ``abort`` idempotent and refuses writes after either.

    :called: when a cut result's content is kept (``spill`` on), before the strategy cuts.
    :cost: one call per kept artifact.

    .. versionadded:: 0.1

    Implementing this hook: a ``wrapper=True`` implementation can wrap the writer that the
    others return, for example to count bytes, to redact secrets or to tee the content to a
    second store. A writer that raises is a plugin's bug, handled as a failed store: the
    result is cut inline, and the notes name the plugin. A store's own errors
    (``StoreError``, ``OSError``: a full disk) are not bugs, and always degrade so.
    """


@hookspec
def salient_detector(tool: str | None, policy: Policy) -> SalientDetector | None:
    """Add a highlights detector: the lines worth lifting from an omitted part into the
    highlights block, and the lines shown with them.

    All results are collected. Called once per tool, the first time the tool's highlights are
    needed (a result cut, or a stream whose text outgrows the head it keeps, with
    ``highlights`` on); the detectors of all plugins are compiled together into one matcher
    for the tool (`salient lines <docs/streams.md#salient-lines>`_).

    :param tool: the tool name, or None. Return a detector for the tools whose output you
        know (a ``cargo`` plugin: ``test result:`` lines for ``execute_command``).
    :param policy: the effective per-tool policy (``policy.highlights`` is the most lines
        shown).
    :returns: a :class:`~truncation_core.types.salient.SalientDetector`
        (``SalientDetector(patterns=..., units=..., records=...)``, from
        ``truncation_core.plugin``; each part optional, below), or None.

    :called: the first time a tool's highlights are needed.
    :cost: one call per tool, per Truncator; the patterns then scan every cut result of the
        tool, ``choose`` runs for the first matches of every group, and ``test`` for each
        record line holding a keyword.

    .. versionadded:: 0.1

    The built-in detector (:mod:`truncation_core.builtins.highlights`) is made of the generic
    one (``builtins/salient.py``: error and exception headers, tracebacks, ``FAILED``,
    ``error:``, ``panic``, warnings, test summaries, exit statuses and CI runners' last
    lines) and those of tool families (the ``builtins/salient_*.py`` modules: compilers and
    linters, test runners, JVM, .NET, browser harnesses, sanitizers, Ruby, R, Haskell, Xcode,
    and the error records of structured logs), each declared with only names that
    ``truncation_core.plugin`` exports, as a plugin's would be. It imports and makes them on
    the first call (a function under ``functools.cache``): a ``SalientPattern`` checks its
    regular expressions when it is made, and every Truncator (every ``trunc`` command)
    imports the plugin, most never cutting a highlighted result. A plugin with many patterns
    can do the same.

    .. rubric:: patterns: which lines are salient

    A line matches a :class:`~truncation_core.types.salient.SalientPattern` (``name``,
    ``keywords``, ``regex``, ``rank``, ``header``) when its first 512 characters, ANSI
    escapes removed, contain one of the pattern's ``keywords`` (literal, case-sensitive) and,
    if ``regex`` is set, ``re.search`` finds it there. Every pattern needs at least one
    keyword: keywords are what keeps scanning fast (in coloured output, a line is classified
    when it holds a keyword, or the start of one right before an escape character, since a
    colour code may split a keyword). ``rank`` orders what is shown: 0 first (test
    summaries, exit statuses, the last lines of build tools and CI runners), then 1 (errors),
    then 2 and above (details and warnings, shown only when they are few).

    For a header that has no fixed word, but a line under it that has one, give ``header``: a
    regular expression for the line right above the matching line, which is then the salient
    line (and the matching line the first below it). ruff's full output is found this way:
    ``F821 Undefined name`` has no word to look for, but the `` --> app.py:7:53`` under it
    has.

    .. rubric:: units: the lines shown with a salient line

    A header without its location is half useless: ``error[E0308]: mismatched types`` wants
    its ``--> src/lib.rs:87:5``, a Python exception its innermost ``File "...", line N`` and
    the source line under it. A :class:`~truncation_core.types.salient.SalientUnit` says
    which lines go with it:

    - ``name``: a short name, for the metadata and logs;
    - ``patterns``: the names of the patterns (or records), of any detector, whose lines it
      extends;
    - ``above``, ``below``: how many lines on each side it looks at (0 to 64);
    - ``choose(lines: UnitLines) -> offsets``: given the matching line (``lines.line``) and
      the lines ``above`` and ``below`` it, nearest first (each its first 512 characters,
      ANSI escapes removed; fewer near the start or the end of the output), the offsets of
      the lines to keep: ``-1`` is the line right above, ``1`` the line right below.

    ``lines_below(take, stop=None, most=3)`` and ``lines_above(...)`` make the usual
    ``choose``: walk away from the line, take each line the regular expression ``take``
    finds, and end at a line ``stop`` finds (taken too if ``take`` finds it) or after
    ``most`` lines taken. The block shows a unit's lines with their own line numbers, next to
    the salient line, when they lie in the omitted part; they count against the block's share
    of the budget like any line, and the metadata lists them with ``unit`` (the unit's name)
    and ``of_line``. ``choose`` runs for the first matches of every group, as the text goes
    by: keep it a cheap, pure function of what it is given, and never raise (if it does, the
    unit adds nothing to that match, and the failure is logged with the unit's name, never
    the content).

    .. rubric:: records: a JSON Lines log judged parsed

    In a structured log the words that make a text line salient are field names and values
    anywhere in the record (``"level":"error"``, pino's ``"level":50``, an ``"err": {...}``
    object after a long stack), so records are judged parsed. A
    :class:`~truncation_core.types.salient.SalientRecord` has a ``name``, ``keywords``
    (literal strings, one of which the line of every record you want contains: only those
    lines are parsed), ``test(record) -> bool`` (given the parsed object; it must be a pure
    function of it, and an exception counts as False) and a ``rank``. A line that starts with
    ``{``, holds a rule's keyword and is at most 64 KiB long is parsed; if it is a JSON
    object, the rules decide, in rank order (the first whose keyword the line holds and whose
    ``test`` is true), and the patterns are not tried on it. A record is shown cut as a
    record: each string value over 120 characters keeps its start and its end, with the cut
    marked inside the string.

    .. rubric:: Why data and not a function over the text

    Extraction must also run over streams, whose omitted middle is never held in memory.
    Patterns are matched line by line as the stream goes by, units see the lines around each
    match as they pass, and one engine applies them the same way to ``process`` and to
    streams (which therefore agree), counts the block against the budget, and keeps the
    result deterministic. A plugin that wants different highlights for a tool returns a
    different detector; one that wants none sets ``highlights: 0`` for it in configuration.
    """


@hookspec
def register_commands(cli: click.Group) -> None:
    """Add commands to the ``trunc`` command line.

    All results are collected (there are none: the implementation adds commands to *cli*).
    Modelled on llm's hook of the same name. Called once per run of ``trunc``, after plugins
    load with the configuration's plugin settings (``plugins.enable``, ``disable``,
    ``modules``; the file given with ``trunc --config``, or the one found from the working
    directory), when ``trunc`` is asked for a command that is not built in, or lists its
    commands (``trunc --help``). A built-in command (``trunc apply``, ``trunc run`` ...) is
    dispatched without loading plugins for commands, so that its start-up stays cheap. Never
    called by a :class:`~truncation_core.Truncator`.

    :param cli: the group the plugin's commands go into (a :class:`click.Group`): add
        commands or groups with ``cli.add_command(...)`` or the ``@cli.command()`` /
        ``@cli.group()`` decorators, and each becomes ``trunc <name>``. A command reaches the
        configuration through the click context's object (``@click.pass_obj``, or
        ``click.get_current_context().obj``): its ``config_path``, and ``truncator()``, which
        builds the configured Truncator.
    :returns: None; what counts is what the implementation adds to *cli*.

    :called: when ``trunc`` runs a command that is not built in, or lists the commands.
    :cost: one call per plugin, per run of ``trunc``; none for built-in commands.

    .. versionadded:: 0.1

    Implementing this hook: keep the module that holds it cheap to import, and import what a
    command needs (a web framework, an SDK) inside the command. A command named like a
    built-in one, or like one that an earlier plugin added, is skipped with a warning. An
    implementation that raises is reported on stderr by plugin name and exception type,
    never the exception's message, and ``trunc`` goes on without that plugin's commands
    (with ``plugins.strict`` on, it stops with that error instead).
    """
