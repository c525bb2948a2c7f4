"""Small JSON documents through ``element``: the cut against ``json.loads`` of the same text.

    python bench/bench_small_json.py            # 10 KB and 40 KB, two shapes each
    python bench/bench_small_json.py --quick    # fewer samples
    python bench/bench_small_json.py --floors   # what each way around the Python writer costs

JSON tool results of 10 to 50 KB are the most common large results an agent sees (API
responses, search results). Each case cuts one document to the default budget (8,000
characters) in a warm process:

* ``element``: :func:`~truncation_core.structured.dispatch.element_cut` with fresh content
  facts, so the parse is included (``json.loads`` with the pairs hook, then the fit);
* ``fit``: the fit alone, of the document already parsed (what the parse costs is the
  difference), for reference;
* ``process``: ``Truncator.process`` of the same text (spill off), for reference: the whole
  call, strategy selection and metadata included.

The baseline is ``json.loads`` of the same text, measured in the same run. Samples of the
baseline and of the cut alternate, and each time is the fastest of N samples, in CPU time of
the process (``time.process_time_ns``): on a shared machine, wall time also counts the time
other processes hold the CPU, which at these durations (0.05 to 2 ms) is most of the noise.
Compare ratios, not absolute times. Target: ``element`` within 5x ``json.loads``.

``--floors`` times, the same way, the least a writer in Python does (the whole document
written once, nothing else), and the parts of the ways tried to go below the pure-Python
writer, each alone, as multiples of ``json.loads`` (see bench/results/small_json.md): a part
that alone leaves no room under 5x rules its way out. It reaches into the fitter's private
plan (``_Plan``, ``_choose``) for the fit with serialization free.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from collections.abc import Callable
from typing import Any

TARGET = 5.0


def _words(rng: random.Random, n: int) -> str:
    return " ".join("".join(rng.choice("abcdefghijklmnopqrstuvwxyz")
                            for _ in range(rng.randint(1, 9))) for _ in range(n))


def search_response(size: int) -> str:
    """Search results with scores, pretty-printed (indent 2), of at least *size* characters."""
    rng = random.Random(1)  # noqa: S311 (test data, not a secret)
    results: list[dict[str, Any]] = []
    text = ""
    while len(text) < size:
        i = len(results)
        results.append({"id": i, "title": f"Result {i}: {_words(rng, 4)}",
                        "url": f"https://example.com/docs/{i}?q=needle",
                        "score": round(rng.random(), 4), "snippet": _words(rng, 24),
                        "tags": [_words(rng, 1) for _ in range(rng.randint(0, 4))]})
        text = json.dumps({"query": "needle", "total": len(results), "results": results},
                          indent=2)
    return text


def api_response(size: int) -> str:
    """A page of users from a REST API, compact, of at least *size* characters."""
    rng = random.Random(2)  # noqa: S311 (test data, not a secret)
    users: list[dict[str, Any]] = []
    text = ""
    while len(text) < size:
        i = len(users)
        users.append({"id": 1000 + i, "login": f"user{i}", "site_admin": i % 7 == 0,
                      "type": "User", "node_id": f"MDQ6VXNlcj{i}",
                      "followers": rng.randint(0, 10_000),
                      "bio": None if i % 3 else _words(rng, 6),
                      "repos": [{"name": f"repo-{j}", "stars": rng.randint(0, 500)}
                                for j in range(rng.randint(0, 4))]})
        text = json.dumps({"data": users, "page": 1, "per_page": len(users)})
    return text


def fastest(samples: int, *fns: Callable[[], Any]) -> list[float]:
    """The fastest time of each function over *samples* rounds, the functions alternating."""
    best = [float("inf")] * len(fns)
    for _ in range(samples):
        for i, fn in enumerate(fns):
            start = time.process_time_ns()
            fn()
            best[i] = min(best[i], (time.process_time_ns() - start) / 1e9)
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer samples")
    parser.add_argument("--floors", action="store_true",
                        help="time the parts of the ways around the Python writer instead")
    args = parser.parse_args()
    samples = 100 if args.quick else 400
    if args.floors:
        floors(samples)
        return

    from truncation_core import Truncator
    from truncation_core.pipeline.facts import content_facts
    from truncation_core.structured.dispatch import element_cut
    from truncation_core.structured.json_element import detect_style, fit
    from truncation_core.structured.notes import NoteCache
    from truncation_core.structured.sniff import parse
    from truncation_core.types.markers import MarkerRenderer

    # element pinned: with its default strategy, a search tool's results with scores go to
    # ranked, and process() is timed here only as the whole call around the same cut.
    truncator = Truncator({"spill": False, "tools": {"search_files": {"strategy": "element"}}},
                          load_entrypoints=False)
    policy = truncator.policy("search_files")

    def cut(text: str) -> Any:
        facts = content_facts(text)
        markers = MarkerRenderer(format=truncator.plugins.format_marker, policy=policy,
                                 strategy="element", tool="search_files", facts=facts)
        return element_cut(text, budget=policy.budget, facts=facts, policy=policy,
                           markers=markers)

    def fit_parsed(text: str, value: Any) -> Any:
        markers = MarkerRenderer(format=truncator.plugins.format_marker, policy=policy,
                                 strategy="element", tool="search_files",
                                 facts=content_facts(text))
        return fit(value, budget=policy.budget, style=detect_style(text),
                   note=NoteCache(markers), head_ratio=policy.head_ratio,
                   max_depth=policy.max_depth)

    worst = 0.0
    for name, make in (("search results, indented", search_response),
                       ("API response, compact", api_response)):
        for size in (10_000, 40_000):
            text = make(size)
            result = cut(text)
            assert result.strategy is None and len(result.text) <= policy.inline_limit
            json.loads(result.text)
            processed = truncator.process(text, tool="search_files")
            assert processed.metadata.strategy_used == "element"
            value = parse(text).value
            loads, ours, fitted, whole = fastest(
                samples, lambda t=text: json.loads(t), lambda t=text: cut(t),
                lambda t=text, v=value: fit_parsed(t, v),
                lambda t=text: truncator.process(t, tool="search_files"))
            ratio = ours / loads
            worst = max(worst, ratio)
            print(f"{name}, {len(text) / 1000:.0f} KB: element {ours * 1000:.3f} ms vs json.loads "
                  f"{loads * 1000:.3f} ms -> ratio {ratio:.1f} (target <= {TARGET:.0f}) "
                  f"{'OK' if ratio <= TARGET else 'MISSED'}; fit alone {fitted / loads:.1f}, "
                  f"process() {whole / loads:.1f}")
    print(f"worst element ratio {worst:.1f}")


# -- floors ---------------------------------------------------------------------------------------
#
# Taking each member's text from the input needs proof that the input is laid out exactly as
# the fitter writes (else the output would change): these patterns are that proof, for the
# compact layouts and for the indented one (each line's indentation against the next line's,
# by back-reference). Strings may hold only the escapes the fitter writes the same way.

_STRING = r'"[^"\\\n]*(?:\\["\\bfnrt][^"\\\n]*)*"'
_TOKEN = r'[^\s",:\[\]{}]+'


def layout_pattern(indent: str | None, item_sep: str, key_sep: str) -> re.Pattern[str]:
    """Matches (``fullmatch``) a stripped JSON text laid out exactly as the fitter writes it."""
    if indent is None:
        return re.compile(f'(?:{_STRING}|[^\\s",:]+|{re.escape(item_sep)}|{re.escape(key_sep)})*+')
    unit, keys = re.escape(indent), re.escape(key_sep)
    value = f"(?:{_STRING}|{_TOKEN}|\\[\\]|\\{{\\}}|[\\]}}])"
    line = (f"(?P<p>(?:{unit})*){unit}(?:{_STRING}{keys})?(?:"
            f"[\\[{{]\\n(?=(?P=p){unit}{unit}[^\\s\\]}}])"
            f"|{value},\\n(?=(?P=p){unit}[^\\s\\]}}])"
            f"|{value}\\n(?=(?P=p)[\\]}}]))")
    return re.compile(f"[\\[{{]\\n(?={unit}[^\\s\\]}}])(?:{line})*+[\\]}}]")


def member_stats(value: Any) -> tuple[int, int, int, int]:
    """Longest array, widest object, longest string and height, as the fitter's serializer
    computes them beside the text (a walk of the value, without writing it)."""
    pairs = type(value) is tuple
    items, keys = (0, len(value)) if pairs else (len(value), 0)
    chars = height = 0
    for member in value:
        if pairs:
            member = member[1]
        kind = type(member)
        if kind is str:
            chars = max(chars, len(member))
        elif (kind is tuple or kind is list) and member:
            stats = member_stats(member)
            items, keys = max(items, stats[0]), max(keys, stats[1])
            chars, height = max(chars, stats[2]), max(height, stats[3])
    return items, keys, chars, height + 1


def minimal_writer(indent: str | None, item_sep: str, key_sep: str) -> Callable[[Any], str]:
    """The least a pure-Python writer of the parsed value does: each value written once, no
    statistics, no memo, no budget (the floor of any fitter that writes in Python)."""
    from json.encoder import encode_basestring

    from truncation_core.structured.sniff import RawNumber

    literals = {None: "null", True: "true", False: "false"}

    def write(value: Any, depth: int) -> str:
        if indent is None:
            sep, first, last = item_sep, "", ""
        else:
            first = "\n" + indent * (depth + 1)
            sep, last = item_sep + first, "\n" + indent * depth
        parts: list[str] = []
        append = parts.append
        pairs = type(value) is tuple
        for member in value:
            key = ""
            if pairs:
                key, member = member
                key = encode_basestring(key) + key_sep
            kind = type(member)
            if kind is str:
                append(key + encode_basestring(member))
            elif kind is int:
                append(key + int.__repr__(member))
            elif kind is RawNumber:
                append(key + str.__str__(member))
            elif kind is list or kind is tuple:
                append(key + (write(member, depth + 1) if member else "{}" if kind is tuple
                              else "[]"))
            else:
                append(key + literals[member])
        opening, closing = ("{", "}") if pairs else ("[", "]")
        return opening + first + sep.join(parts) + last + closing

    return lambda value: write(value, 0)


def floors(samples: int) -> None:
    from json.encoder import c_encode_basestring, c_make_encoder  # type: ignore[attr-defined]
    from json.scanner import c_make_scanner  # type: ignore[attr-defined]

    from truncation_core import Truncator
    from truncation_core.pipeline.facts import content_facts
    from truncation_core.structured.json_element import _choose, _Plan, detect_style
    from truncation_core.structured.notes import NoteCache
    from truncation_core.structured.sniff import RawNumber, parse
    from truncation_core.types.cuts import ElementOmission
    from truncation_core.types.markers import MarkerRenderer

    truncator = Truncator({"spill": False, "tools": {"search_files": {"strategy": "element"}}},
                          load_entrypoints=False)
    policy = truncator.policy("search_files")
    budget = policy.budget

    def reject(name: str) -> Any:
        raise ValueError(name)

    scan = c_make_scanner(json.JSONDecoder(object_pairs_hook=tuple, parse_float=RawNumber,
                                           parse_constant=reject))
    encode = c_make_encoder(None, None, c_encode_basestring, None, ":", ",", False, False, True)
    duplicates: list[int] = []

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        members = dict(pairs)
        if len(members) != len(pairs):
            duplicates.append(1)
        return members

    def float_hook(text: str) -> float:
        number = float(text)
        if repr(number) != text:
            duplicates.append(1)
        return number

    print("each part alone, as a multiple of json.loads of the same document "
          f"(fastest of {samples}, alternating)")
    for name, make in (("search results, indented", search_response),
                       ("API response, compact", api_response)):
        for size in (10_000, 40_000):
            text = make(size)
            value = parse(text).value
            key, records = value[-1] if name.startswith("search") else value[0]
            plain_records = json.loads(text)[key]
            style = detect_style(text)
            body = text.strip()
            layout = layout_pattern(style.indent, style.item_sep, style.key_sep)
            assert layout.fullmatch(body)
            # Where the cut array's members start and end in the input: the C scanner from
            # one member to the next (the input's layout is known, so the gaps are too).
            opening = f'"{key}":' + style.key_sep[1:] + "["
            first = text.index(opening) + len(opening)
            inner = "" if style.indent is None else "\n" + style.indent * 2
            gap = len(style.item_sep) + len(inner)
            inner_len = len(inner)

            def spans(text: str = text, records: Any = records, first: int = first,
                      gap: int = gap, inner_len: int = inner_len) -> list[Any]:
                out = []
                at = first + inner_len
                for record in records:
                    end = scan(text, at)[1]
                    out.append((text[at:end], member_stats(record)))
                    at = end + gap
                return out

            assert all(span == json.dumps(json.loads(span), indent=style.indent,
                                          separators=(style.item_sep, style.key_sep))
                       .replace("\n", "\n" + (style.indent or "") * 2)
                       for span, _ in spans())
            facts = content_facts(text)
            markers = MarkerRenderer(format=truncator.plugins.format_marker, policy=policy,
                                     strategy="element", tool="search_files", facts=facts)
            notes = NoteCache(markers)
            first_plan = _Plan(value, budget=budget, style=style, note=notes,
                               head_ratio=policy.head_ratio, max_depth=policy.max_depth)
            assert _choose(first_plan.fits, budget, policy.max_depth) is not None
            measured = dict(first_plan.memo)
            first_plan.release()

            def fit_measured(value: Any = value, measured: Any = measured,
                             notes: Any = notes, style: Any = style) -> Any:
                plan = _Plan(value, budget=budget, style=style, note=notes,
                             head_ratio=policy.head_ratio, max_depth=policy.max_depth)
                plan.memo.update(measured)
                fitted = plan.render(_choose(plan.fits, budget, policy.max_depth))  # type: ignore[arg-type]
                plan.release()
                return fitted

            element = ElementOmission(kind="json_items", count=7, total=27, unit="items",
                                      path=f"$.{key}")
            writer = minimal_writer(style.indent, style.item_sep, style.key_sep)
            assert writer(value) == body  # the documents are in the fitter's own layout
            parts: dict[str, Callable[[], Any]] = {
                "parse": lambda t=text: parse(t),
                "0: minimal writer, whole": lambda w=writer, v=value: w(v),
                "1: layout check": lambda p=layout, b=body: p.fullmatch(b),
                "1: spans + stats": spans,
                "2: parse to dicts, checked": lambda t=text: json.loads(
                    t, object_pairs_hook=pairs_hook, parse_float=float_hook),
                "2: C encoder, members": lambda r=plain_records: [encode(x, 0) for x in r],
                "3: fit, serialization free": fit_measured,
                "3: one note": lambda m=markers, e=element: m.note(e),
            }
            times = fastest(samples, lambda t=text: json.loads(t), *parts.values())
            print(f"{name}, {len(text) / 1000:.0f} KB: " + ", ".join(
                f"{part} {time / times[0]:.2f}" for part, time in zip(parts, times[1:],
                                                                      strict=True)))
    assert not duplicates  # the documents are the common case direction 2 is for


if __name__ == "__main__":
    main()
