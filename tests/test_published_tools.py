"""artifact_tools.published: the markers name only the artifact tools the model is given."""

from __future__ import annotations

import json
import re

import pytest

from truncation_core import Truncator
from truncation_core.errors import ConfigError
from truncation_core.types.tool_names import ARTIFACT_TOOLS

LOG = "\n".join(f"{i:05d} step {i} of the build ... ok" for i in range(1, 20_001)) + "\n"
SMALL_LOG = "\n".join(f"{i:05d} step {i} of the build ... ok" for i in range(1, 601)) + "\n"
RECORDS = json.dumps([{"id": i, "text": "y" * 60} for i in range(400)])
_CALL = re.compile(r"\b(" + "|".join(ARTIFACT_TOOLS) + r")\b")


def _truncator(**names: object) -> Truncator:
    return Truncator({"store": {"backend": "memory"}, "artifact_tools": names},
                     load_entrypoints=False)


def _named(text: str) -> set[str]:
    return set(_CALL.findall(text))


@pytest.mark.parametrize("content", [LOG, SMALL_LOG, RECORDS])
def test_control_by_default_the_markers_name_the_tools(content: str) -> None:
    assert _named(_truncator().process(content).content) >= {"get_artifact"}


@pytest.mark.parametrize("content", [LOG, SMALL_LOG, RECORDS])
def test_none_published_names_no_tool_and_says_where_the_rest_is(content: str) -> None:
    result = _truncator(published=[]).process(content)
    assert result.metadata.was_truncated and result.metadata.artifact_id
    assert _named(result.content) == set()
    assert result.metadata.artifact_id in result.content


def test_some_published_names_only_those() -> None:
    truncator = _truncator(published=["get_artifact"], prefix="ci_")
    for content in (LOG, SMALL_LOG, RECORDS):
        shown = truncator.process(content).content
        assert set(re.findall(r"\bci_(\w+)\(", shown)) <= {"get_artifact"}
        assert "artifact_grep" not in shown and "artifact_tail" not in shown
    hint = truncator.process(SMALL_LOG).content
    assert 'ci_get_artifact(artifact_id="' in hint
    assert [e["function"]["name"] for e in truncator.tool_schemas()] == ["ci_get_artifact"]


def test_publishing_shares_the_store_and_the_sessions() -> None:
    truncator = _truncator()
    with truncator.session() as session:
        bare = truncator.publishing([])
        result = bare.process(LOG)
        assert _named(result.content) == set() and bare.tool_schemas() == []
        assert truncator.artifacts.stat(result.metadata.artifact_id) is not None
        assert bare.store is truncator.store is session.store
    assert truncator.publishing(ARTIFACT_TOOLS) is truncator
    assert _named(truncator.process(LOG).content)  # the original is unchanged


def test_a_bad_published_list_names_the_field() -> None:
    with pytest.raises(ConfigError, match=r"artifact_tools\.published.*not an artifact tool"):
        _truncator(published=["get_artefact"])
    with pytest.raises(ConfigError, match=r"artifact_tools\.published.*list"):
        _truncator(published="get_artifact")
