"""truncation-core for agent frameworks: one line each.

Each framework has its module, imported only when used (each needs its extra):

- :mod:`truncation_core_adapters.pydantic_ai`: ``TruncatingToolset(toolset, truncator)``
  (extra ``pydantic-ai``);
- :mod:`truncation_core_adapters.openai_agents`: ``truncating_tools(tools, truncator)`` and
  ``artifact_tools(truncator)`` (extra ``openai-agents``);
- :mod:`truncation_core_adapters.langchain`: ``truncating_tools(tools, truncator)`` and
  ``artifact_tools(truncator)`` for langchain-core ``BaseTool``s (extra ``langchain``);
- :mod:`truncation_core_adapters.mcp`: ``TruncationMiddleware(truncator)`` for an
  ``MCPServer``'s tools (extra ``mcp``);
- :mod:`truncation_core_adapters.smolagents`: ``truncating_tools(tools, truncator)`` and
  ``artifact_tools(truncator)`` (extra ``smolagents``);
- :mod:`truncation_core_adapters.google_adk`: ``truncating_callback(truncator)`` for
  ``LlmAgent(after_tool_callback=...)`` and ``artifact_tools(truncator)`` (extra
  ``google-adk``);
- :mod:`truncation_core_adapters.crewai`: ``truncating_hook(truncator)`` for
  ``crewai.hooks.after_tool_call`` and ``artifact_tools(truncator)`` (extra ``crewai``);
- :mod:`truncation_core_adapters.praisonai`: ``artifact_tools(truncator)`` beside tools
  wrapped by ``Truncator.tool``, and ``TruncationArtifactStore(truncator)``, PraisonAI's
  ``ArtifactStoreProtocol`` (extra ``praisonai``).

docs/integrations.md describes each.
"""

__version__ = "0.1.0"
