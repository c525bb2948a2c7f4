"""truncation-core for agent frameworks: one line each.

Each framework has its module, imported only when used (each needs its extra):

- :mod:`truncation_core_adapters.pydantic_ai`: ``TruncatingToolset(toolset, truncator)``
  (extra ``pydantic-ai``);
- :mod:`truncation_core_adapters.openai_agents`: ``truncating_tools(tools, truncator)`` and
  ``artifact_tools(truncator)`` (extra ``openai-agents``);
- :mod:`truncation_core_adapters.langchain`: ``truncating_tools(tools, truncator)`` and
  ``artifact_tools(truncator)`` for langchain-core ``BaseTool``s (extra ``langchain``);
- :mod:`truncation_core_adapters.mcp`: ``TruncationMiddleware(truncator)`` for an
  ``MCPServer``'s tools (extra ``mcp``).

docs/integrations.md describes each.
"""

__version__ = "0.1.0"
