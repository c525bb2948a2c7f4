"""Hypothesis strategies for JSON, friendly and hostile (research: reliability.md section 5)."""

from __future__ import annotations

import json

from hypothesis import strategies as st

line_endings = st.sampled_from(["\n", "\r\n", "\r", "\x0b", "\x0c", "\x85", "\u2028"])
astral = st.characters(min_codepoint=0x10000, max_codepoint=0x10FFFF)
surrogate = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
any_char = st.characters(codec=None, exclude_categories=())
messy_text = st.lists(st.one_of(st.text(max_size=20), line_endings, astral, surrogate, any_char),
                      max_size=40).map("".join)
long_text = st.integers(0, 1500).map(lambda n: "abcdefghij" * (n // 10))
json_scalars = (st.none() | st.booleans() | st.integers(-(10**30), 10**30)
                | st.floats(allow_nan=False, allow_infinity=False) | messy_text | long_text)
#: Arrays and objects wider than the budget can show, so that middles really are dropped.
wide = (st.lists(st.integers(-1000, 1000) | st.text(max_size=8), min_size=30, max_size=400)
        | st.dictionaries(st.text(max_size=6), st.integers(), min_size=30, max_size=200))
json_values = st.recursive(
    json_scalars | wide,
    lambda kids: st.lists(kids, max_size=25) | st.dictionaries(messy_text, kids, max_size=10),
    max_leaves=60)
#: A JSON document as text, compact or indented (ensure_ascii off: lone surrogates stay raw).
json_documents = st.tuples(json_values, st.sampled_from([None, 1, 2, 4])).map(
    lambda v: json.dumps(v[0], indent=v[1], ensure_ascii=False))
hostile_json = st.one_of(
    messy_text,
    st.integers(1, 20_000).map(lambda n: "[" * n),
    st.integers(1, 5_000).map(lambda n: "[" * n + "]" * n),
    st.integers(1, 3_000).map(lambda n: '{"a":' * n + "1" + "}" * n),
    json_documents.flatmap(lambda t: st.integers(0, len(t)).map(lambda i: t[:i])),
    st.sampled_from(["NaN", "[Infinity]", '{"a":1,"a":2}', "\ufeff{}", '"\\ud800"', "[1e999]",
                     "-0", '{"a": NaN}', "[" + "9" * 5000 + "]", "\x00", "\r\r\r", "{}" * 3]),
)
