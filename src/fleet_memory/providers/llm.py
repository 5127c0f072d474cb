"""LLM seam: one required method, ``complete(messages, *, schema) -> str``, and the structured
call built on it.

``OpenAICompatibleLLM`` speaks the chat-completions protocol of OpenAI, Groq, Ollama, vLLM and
others, asking for JSON-schema structured output. ``structured_call`` validates the answer with a
Pydantic model, retries a bounded number of times, and then raises ``ExtractionError`` quoting
what came back — it never returns an empty result in place of a failure.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Protocol, TypeVar, runtime_checkable

import httpx
from pydantic import BaseModel, ValidationError

from ..config import LLMConfig
from ..errors import ExtractionError, ProviderError

__all__ = ["LLM", "OpenAICompatibleLLM", "structured_call"]

_log = logging.getLogger(__name__)
T = TypeVar("T", bound=BaseModel)


@runtime_checkable
class LLM(Protocol):
    def complete(self, messages: list[dict[str, str]], *, schema: dict[str, Any] | None = None) -> str: ...


class OpenAICompatibleLLM:
    """Chat completions over HTTP (``{base_url}/chat/completions``)."""

    def __init__(self, config: LLMConfig, *, client: httpx.Client | None = None) -> None:
        self.config = config
        headers = {"Authorization": f"Bearer {config.api_key}"} if config.api_key else {}
        self._client = client or httpx.Client(base_url=config.base_url.rstrip("/"), headers=headers,
                                              timeout=config.timeout_s)

    def complete(self, messages: list[dict[str, str]], *, schema: dict[str, Any] | None = None) -> str:
        body: dict[str, Any] = {"model": self.config.model, "messages": messages, "temperature": 0}
        if schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": schema.get("title", "response"), "schema": schema, "strict": False},
            }
        try:
            response = self._client.post("/chat/completions", json=body)
        except httpx.HTTPError as exc:
            raise ProviderError(f"LLM endpoint {self.config.base_url} unreachable: {exc}") from exc
        if response.status_code >= 400:
            raise ProviderError(
                f"LLM endpoint {self.config.base_url} answered {response.status_code}: {response.text[:300]}"
            )
        try:
            return response.json()["choices"][0]["message"]["content"] or ""
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise ProviderError(f"LLM endpoint returned an unexpected body: {response.text[:300]}") from exc

    def close(self) -> None:
        self._client.close()


def _strip_fences(text: str) -> str:
    text = text.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        if text.rstrip().endswith("```"):
            text = text.rstrip()[:-3]
    return text.strip()


def structured_call(llm: LLM, messages: list[dict[str, str]], model: type[T], *, retries: int = 2) -> T:
    """Ask for JSON matching ``model``; retry ``retries`` times on invalid output, then raise."""
    schema = model.model_json_schema()
    last = ""
    problem = ""
    for attempt in range(retries + 1):
        asked = messages if attempt == 0 else messages + [
            {"role": "assistant", "content": last},
            {"role": "user", "content": f"That was not valid: {problem}. Answer with JSON matching the schema only."},
        ]
        last = llm.complete(asked, schema=schema)
        try:
            return model.model_validate(json.loads(_strip_fences(last)))
        except json.JSONDecodeError as exc:
            problem = f"invalid JSON ({exc.msg} at position {exc.pos})"
        except ValidationError as exc:
            problem = f"JSON did not match the schema ({exc.error_count()} errors: {exc.errors()[0]['msg']})"
        _log.warning("LLM answer %d/%d rejected: %s", attempt + 1, retries + 1, problem)
    shown = last if len(last) <= 300 else last[:300] + "…"
    raise ExtractionError(f"the LLM gave no valid answer after {retries + 1} attempts: {problem}; "
                          f"last answer: {shown!r}")
