"""The artifact tools' names on a proxy, and marker templates that use them."""

from __future__ import annotations

from truncation_core_mcp.naming import ToolNames

from truncation_core import Truncator
from truncation_core.config.model import Config
from truncation_core.types.templates import MarkerConfig

OWN = ["get_artifact", "artifact_head", "artifact_tail", "artifact_grep"]


def test_own_names_when_nothing_clashes() -> None:
    names = ToolNames.avoiding({"read_file", "artifact", "get_artifacts"})
    assert list(names.shown.values()) == OWN
    assert not names.renamed


def test_all_four_get_the_prefix_when_one_clashes() -> None:
    names = ToolNames.avoiding({"artifact_grep"})
    assert list(names.shown.values()) == [f"trunc_{n}" for n in OWN]
    assert names.tool_for("trunc_artifact_grep") == "artifact_grep"
    assert names.tool_for("artifact_grep") is None


def test_a_taken_prefix_moves_on() -> None:
    names = ToolNames.avoiding({"get_artifact", "trunc_artifact_tail", "trunc2_get_artifact"})
    assert list(names.shown.values()) == [f"trunc3_{n}" for n in OWN]


def test_markers_use_the_names_shown() -> None:
    names = ToolNames.avoiding({"get_artifact"})
    config = names.config(Config(inline_limit=1000, artifact_threshold=2000))
    truncator = Truncator(config, load_entrypoints=False)
    big = truncator.process("".join(f"line {i}\n" for i in range(5000)), tool="t").content
    assert 'trunc_get_artifact(artifact_id="' in big
    assert ("search it with trunc_artifact_grep, read lines with trunc_get_artifact or "
            "trunc_artifact_tail") in big
    assert "(get_artifact" not in big and " get_artifact(" not in big
    small = truncator.process("".join(f"line {i}\n" for i in range(250)), tool="t").content
    assert "; trunc_get_artifact(artifact_id=" in small
    # The user's own template is renamed too, and a word merely containing a name is not.
    hint = " (see get_artifact/{artifact_id}; my_get_artifact_x)"
    custom = Config(marker=MarkerConfig(hint=hint))
    assert names.config(custom).marker.hint == \
        " (see trunc_get_artifact/{artifact_id}; my_get_artifact_x)"
