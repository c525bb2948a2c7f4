"""PraisonAI (``praisonaiagents``): tools through ``Truncator.tool``, the artifact tools as
functions, and an ``ArtifactStoreProtocol`` backed by truncation-core's store.

Two ways in, which do different things:

- **Our cut.** Wrap your tools with ``truncator.tool`` and add :func:`artifact_tools`::

      agent = Agent(llm=model, tools=[truncator.tool(build), *artifact_tools(truncator)])

  Each result is cut by truncation-core (content-aware strategies, a marker naming what was
  left out and the call that reads it back); PraisonAI sees a result under its own
  ``output_limit`` and leaves it alone.

- **PraisonAI's cut, our store.** ``Agent(tool_config=ToolConfig(
  artifact_store=TruncationArtifactStore(truncator)))`` keeps the outputs PraisonAI spills in
  truncation-core's store (the filesystem backend, or Redis, as the truncator's ``store:``
  says), and PraisonAI's artifact tools (``artifact_head``, ``artifact_grep`` ...) read them
  there. The cut the model sees is PraisonAI's own (a head, a tail, and
  ``ArtifactRef.to_inline()``).

:class:`TruncationArtifactStore` implements ``store``, ``load``, ``head``, ``tail``, ``grep``,
``chunk``, ``delete`` and ``list_artifacts``. An ``ArtifactRef``'s ``path`` (which
PraisonAI's tools pass back alone) is the artifact id.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import Any, Optional

from praisonaiagents.context.artifacts import ArtifactMetadata, ArtifactRef, GrepMatch

from truncation_core import Truncator
from truncation_core_adapters.common import retry_message

__all__ = ["TruncationArtifactStore", "artifact_tools"]

_TYPES: dict[str, Any] = {"string": str, "integer": int, "boolean": bool, "number": float}


def artifact_tools(truncator: Truncator) -> list[Callable[..., str]]:
    """The artifact tools as functions with typed signatures and docstrings (what PraisonAI
    turns into tool schemas), named as *truncator*'s ``artifact_tools:`` says. A bad call
    returns its error, which the model reads."""
    return [_function(entry["function"], truncator)
            for entry in truncator.tool_schemas("openai")]


def _function(schema: dict[str, Any], truncator: Truncator) -> Callable[..., str]:
    name = schema["name"]
    properties = schema["parameters"]["properties"]
    required = set(schema["parameters"].get("required", ()))

    def call(**arguments: Any) -> str:
        result = truncator.call_tool(name, {k: v for k, v in arguments.items()
                                            if v is not None})
        return retry_message(result) if result.error is not None else result.content

    parameters = [inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY,
                                    annotation=_TYPES[prop["type"]] if key in required
                                    # typing.Optional: PraisonAI reads it, not X | None
                                    else Optional[_TYPES[prop["type"]]],  # noqa: UP045
                                    default=inspect.Parameter.empty if key in required
                                    else None)
                  for key, prop in properties.items()]
    parameters.sort(key=lambda p: p.default is not inspect.Parameter.empty)
    call.__name__ = call.__qualname__ = name
    call.__signature__ = inspect.Signature(parameters, return_annotation=str)  # type: ignore[attr-defined]
    call.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": str}
    call.__doc__ = schema["description"] + "\n\nArgs:\n" + "".join(
        f"    {key}: {prop['description']}\n" for key, prop in properties.items())
    return call


class TruncationArtifactStore:
    """PraisonAI's ``ArtifactStoreProtocol`` over *truncator*'s store (see the module)."""

    def __init__(self, truncator: Truncator) -> None:
        self.truncator = truncator

    @staticmethod
    def _id(ref: ArtifactRef) -> str:
        return ref.artifact_id or ref.path

    def store(self, content: Any, metadata: ArtifactMetadata) -> ArtifactRef:
        """Keep *content* (text, bytes, or data, kept as JSON) as one artifact."""
        from truncation_core.types.artifacts import ArtifactInfo

        if isinstance(content, bytes | bytearray):
            data, mime = bytes(content), "application/octet-stream"
        elif isinstance(content, str):
            data, mime = content.encode(), "text/plain"
        else:
            data, mime = json.dumps(content, default=str).encode(), "application/json"
        tool = metadata.tool_name or None
        summary = f"{tool or 'tool'} output"
        # The agent and the run are kept as the artifact's source, for list_artifacts; the
        # turn is only in the ArtifactRef returned.
        info = ArtifactInfo(tool=tool, summary=summary,
                            server=f"praisonai:{metadata.agent_id}:{metadata.run_id}")
        writer = self.truncator.open_artifact(info, self.truncator.policy(tool))
        if writer is None:
            raise RuntimeError("no artifact store accepted the artifact")
        with writer:
            writer.write(data)
            ref = writer.commit()
        return ArtifactRef(path=ref.id, summary=summary, size_bytes=ref.bytes, mime_type=mime,
                           checksum=self.truncator.artifacts.checksum(ref.id),
                           artifact_id=ref.id, agent_id=metadata.agent_id,
                           run_id=metadata.run_id, tool_name=tool, turn_id=metadata.turn_id)

    def load(self, ref: ArtifactRef) -> Any:
        text = self.truncator.artifacts.text(self._id(ref))
        if ref.mime_type == "application/json":
            return json.loads(text)
        return text

    def head(self, ref: ArtifactRef, lines: int = 50) -> str:
        return self.truncator.artifacts.head(self._id(ref), lines).text

    def tail(self, ref: ArtifactRef, lines: int = 50) -> str:
        return self.truncator.artifacts.tail(self._id(ref), lines).text

    def chunk(self, ref: ArtifactRef, start_line: int = 1,
              end_line: int | None = None) -> str:
        return self.truncator.artifacts.lines(self._id(ref), start_line, end_line).text

    def grep(self, ref: ArtifactRef, pattern: str, context_lines: int = 2,
             max_matches: int = 50) -> list[GrepMatch]:
        found = self.truncator.artifacts.grep(self._id(ref), pattern, regex=True,
                                              context=context_lines, max_matches=max_matches)
        return [GrepMatch(line_number=m.line.number, line_content=m.line.text,
                          context_before=[line.text for line in m.before],
                          context_after=[line.text for line in m.after])
                for m in found.matches]

    def delete(self, ref: ArtifactRef) -> bool:
        return bool(self.truncator.store.delete(self._id(ref)))

    def list_artifacts(self, run_id: str | None = None, agent_id: str | None = None,
                       tool_name: str | None = None) -> list[ArtifactRef]:
        out = []
        for info in self.truncator.store.list():
            server = info.server or ""
            if not server.startswith("praisonai:"):
                continue
            _, agent, run = server.split(":", 2)
            if ((run_id is not None and run != run_id)
                    or (agent_id is not None and agent != agent_id)
                    or (tool_name is not None and info.tool != tool_name)):
                continue
            out.append(ArtifactRef(path=info.id, summary=info.summary or "",
                                   size_bytes=info.bytes, artifact_id=info.id,
                                   agent_id=agent, run_id=run, tool_name=info.tool))
        return out
