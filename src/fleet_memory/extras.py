"""Optional parts and the extras that install them. The core (library, command line) needs none;
the REST server, the MCP server, PNG pictures and the agent-framework integrations each check for
theirs before importing it and name the extra to install when it is missing.

=============  ===========================  ==========================================
extra          modules                      used by
=============  ===========================  ==========================================
server         fastapi, uvicorn, mcp,       ``fleet-memory serve``, ``rest.create_app``
               fastapi-offline (docs assets)
mcp            mcp                          ``fleet-memory mcp``, ``mcp_server``
viz            matplotlib                   ``graph --png``, ``demo``, ``viz.render_png``
langgraph      langgraph                    ``integrations.langgraph``
langchain      langchain, langchain-core    ``integrations.langchain``
llamaindex     llama-index-core             ``integrations.llamaindex``
openai-agents  openai-agents                ``integrations.openai_agents``
pydantic-ai    pydantic-ai-slim             ``integrations.pydantic_ai``
crewai         crewai                       ``integrations.crewai``
=============  ===========================  ==========================================
"""

from __future__ import annotations

import importlib.util

from .errors import ConfigurationError

__all__ = ["MissingExtraError", "require"]


class MissingExtraError(ConfigurationError, ImportError):
    """An optional part was used without the extra that installs it."""


def require(extra: str, feature: str, *modules: str) -> None:
    """Raise ``MissingExtraError`` naming ``extra`` when any of ``modules`` is not installed."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        raise MissingExtraError(f"{feature} needs the optional dependencies of the '{extra}' extra "
                                f"(missing: {', '.join(missing)}): pip install 'fleet-memory[{extra}]'")
