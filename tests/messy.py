"""Hypothesis strategies for hostile tool output (reliability.md §5, verified there).

``st.text()`` never produces lone surrogates, so they get a strategy of their own; line
endings of every kind, astral characters and long single lines are mixed in explicitly.
"""

from __future__ import annotations

from hypothesis import strategies as st

line_endings = st.sampled_from(
    ["\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\u2029"])
astral = st.characters(min_codepoint=0x10000, max_codepoint=0x10FFFF)
surrogate = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
#: Any code point, surrogates included.
any_char = st.characters(codec=None, exclude_categories=())
#: A run of one character, long enough to be a line longer than any budget drawn here.
long_run = st.builds(lambda c, n: c * n, st.sampled_from(["x", "é", "€", "😀", "\ud800"]),
                     st.integers(50, 700))

messy_text = st.lists(
    st.one_of(st.text(max_size=20), line_endings, astral, surrogate, any_char, long_run),
    max_size=60,
).map("".join)

#: Log-like text: many lines of varied length with mixed terminators, the last one possibly
#: unterminated, so that cuts often have a line boundary near them (or just out of reach).
lined_text = st.builds(
    lambda lines, last: "".join(body + end for body, end in lines) + last,
    st.lists(st.tuples(st.text(st.characters(codec=None, exclude_categories=(),
                                             exclude_characters="\r\n"), max_size=40)
                       | long_run,
                       st.sampled_from(["\n", "\r\n", "\r"])), max_size=80),
    st.text(max_size=10) | st.just(""),
)

#: Any tool output.
tool_output = messy_text | lined_text

#: Text without any line terminator: one line, possibly longer than the whole budget.
one_line = st.lists(
    st.one_of(st.text(st.characters(codec=None, exclude_categories=(),
                                    exclude_characters="\r\n"), max_size=30),
              astral, surrogate, long_run),
    min_size=1, max_size=20,
).map("".join).filter(bool)

#: Limits: characters always (inline_limit), bytes and lines optional; all positive.
char_limits = st.integers(1, 400)
byte_limits = st.none() | st.integers(1, 600)
line_limits = st.none() | st.integers(1, 30)
