"""Unit properties of the result processor's helpers."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from truncation_core_mcp.relay import decode, encode
from truncation_core_mcp.results import _dumps, _longer_than

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children) | st.dictionaries(st.text(), children), max_leaves=30)


@given(JSON, st.integers(min_value=-1, max_value=400))
def test_longer_than_never_says_longer_of_what_is_not(value: Any, delta: int) -> None:
    size = len(_dumps(value))
    for limit in (0, max(size - 1, 0), size, size + delta):
        if _longer_than(value, limit):
            assert size > limit


def test_longer_than_stops_early_on_a_huge_value() -> None:
    assert _longer_than({"a": ["x" * 10, "y" * 50_000_000]}, 1000)


@given(JSON)
def test_decode_reads_what_json_reads(value: Any) -> None:
    raw = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"v": value}}).encode()
    assert decode(raw) == json.loads(raw)
    assert decode(encode(json.loads(raw))) == json.loads(raw)


def test_decode_and_encode_a_lone_surrogate() -> None:
    raw = b'{"jsonrpc":"2.0","id":1,"result":{"text":"a\\ud800b"}}'
    data = decode(raw)
    assert data["result"]["text"] == "a\ud800b"
    assert decode(encode(data)) == data  # escaped on the way out: valid UTF-8 bytes
    encode(data).decode("utf-8")


def test_a_json_text_block_over_the_artifact_threshold_still_parses() -> None:
    """The block's cut carries its artifact reference inside (an array's last item), so a
    host that parses the text, and the structured content made from it, get JSON."""
    from truncation_core_mcp.results import CallInfo, ResultProcessor

    from truncation_core.config.model import Config, StoreConfig

    items = [{"id": i, "name": f"file{i}.txt"} for i in range(5000)]
    text = json.dumps(items)
    processor = ResultProcessor(Config(store=StoreConfig(backend="memory")),
                                load_entrypoints=False)
    call = CallInfo(tool="list_files", arguments={}, call_id="c:1", server="files")
    out = processor.process({"content": [{"type": "text", "text": text}],
                             "structuredContent": {"result": items}}, call)
    assert out is not None
    (block,) = out["content"]  # no separate reference block: the cut names the artifact
    shown = json.loads(block["text"])
    assert shown[0] == items[0] and shown[-1].startswith("[Artifact: art_")
    assert isinstance(out["structuredContent"]["result"], list)
