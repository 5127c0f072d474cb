"""A scripted chat model for LangChain and LangGraph agents: LangChain's own
``GenericFakeChatModel`` (answers from a list), made bindable to tools as a tool-calling agent
needs (the fake's ``bind_tools`` is not implemented; the scripted answers already name the tools)."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage


class ScriptedChatModel(GenericFakeChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:
        return self


def calls(*calls: tuple[str, dict]) -> AIMessage:
    """One answer of the model: these tool calls, in order."""
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"call_{i}", "type": "tool_call"}
                                             for i, (name, args) in enumerate(calls)])


def scripted(*answers: AIMessage | str) -> ScriptedChatModel:
    return ScriptedChatModel(messages=iter(answers))
