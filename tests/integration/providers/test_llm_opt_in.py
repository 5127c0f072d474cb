"""LLM use is explicit. A provider's key in the environment (GROQ_API_KEY, OPENAI_API_KEY, ...)
switches nothing on: with those set, and every proxy variable pointing at a local socket that
records connections, put / search / consolidate / process_conversation / build_context send
nothing anywhere. The same socket as ``FLEET_MEMORY_LLM_BASE_URL`` does receive the calls, so
the recorder can see traffic when there is some."""

from __future__ import annotations

import socket
import threading

import pytest

from fleet_memory import Config, FleetMemory, LLMConfig
from fleet_memory.config import GROQ_BASE_URL, GROQ_DEFAULT_MODEL
from fleet_memory.errors import ConfigurationError, InvalidInputError
from fleet_memory.providers.embedder import HashingEmbedder

PROVIDER_KEYS = ("GROQ_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "MISTRAL_API_KEY", "TOGETHER_API_KEY",
                 "OPENROUTER_API_KEY", "DEEPSEEK_API_KEY", "GEMINI_API_KEY", "AZURE_OPENAI_API_KEY")
TURNS = [{"role": "user", "content": "The deploy failed yesterday. I prefer rollbacks over hotfixes."},
         {"role": "assistant", "content": "The fix is to clear the build cache first."}]


class Recorder:
    """A TCP socket that accepts and counts connections, answering nothing useful."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.connections = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 500 Recorded\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            conn.close()


@pytest.fixture
def recorder(monkeypatch):
    rec = Recorder()
    for name in PROVIDER_KEYS:
        monkeypatch.setenv(name, "sk-test-should-never-be-used")
    for name in ("OPENAI_BASE_URL", "OPENAI_API_BASE", "GROQ_BASE_URL", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
                 "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.setenv(name, rec.url)
    for name in ("FLEET_MEMORY_LLM", "FLEET_MEMORY_LLM_BASE_URL", "FLEET_MEMORY_LLM_API_KEY", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    yield rec
    rec.sock.close()


def _exercise(memory: FleetMemory) -> None:
    for _ in range(3):
        memory.put("a1", "The billing deploy failed with a critical error in the build cache.", importance=0.9)
    memory.search("a1", "What failed?")
    memory.consolidate("a1")
    memory.process_conversation("a1", TURNS)
    memory.build_context("a1", "How do I deploy billing?")


def test_provider_keys_alone_send_nothing(recorder, db_url):
    assert Config.from_env().llm is None
    with FleetMemory(Config.from_env(database_url=db_url), embedder=HashingEmbedder()) as memory:
        assert memory.llm is None
        _exercise(memory)
        assert memory.consolidate("a1").method == "offline"
    assert recorder.connections == 0


def test_an_explicit_endpoint_is_used(recorder, db_url, monkeypatch):
    monkeypatch.setenv("FLEET_MEMORY_LLM_BASE_URL", recorder.url)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name)
    with FleetMemory(Config.from_env(database_url=db_url), embedder=HashingEmbedder()) as memory:
        assert memory.llm is not None
        with pytest.raises(Exception, match="500"):
            memory.process_conversation("a1", TURNS)
    assert recorder.connections >= 1


def test_switching_on_without_an_endpoint_means_groq():
    on = Config.from_env({"FLEET_MEMORY_LLM": "on", "GROQ_API_KEY": "gsk"}).llm
    assert (on.base_url, on.model, on.api_key) == (GROQ_BASE_URL, GROQ_DEFAULT_MODEL, "gsk")
    own = Config.from_env({"FLEET_MEMORY_LLM": "on", "FLEET_MEMORY_LLM_API_KEY": "k", "GROQ_API_KEY": "g"}).llm
    assert own.api_key == "k"
    with pytest.raises(ConfigurationError, match="GROQ_API_KEY"):
        Config.from_env({"FLEET_MEMORY_LLM": "on"})
    assert Config.from_env({"FLEET_MEMORY_LLM": "off", "FLEET_MEMORY_LLM_BASE_URL": "http://x"}).llm is None
    with pytest.raises(InvalidInputError, match="FLEET_MEMORY_LLM"):
        Config.from_env({"FLEET_MEMORY_LLM": "maybe"})
    ollama = Config.from_env({"FLEET_MEMORY_LLM_BASE_URL": "http://localhost:11434/v1",
                              "FLEET_MEMORY_LLM_MODEL": "llama3.2"}).llm
    assert (ollama.base_url, ollama.model, ollama.api_key) == ("http://localhost:11434/v1", "llama3.2", None)


def test_an_llm_config_argument_switches_it_on(db_url, recorder):
    config = LLMConfig(base_url="http://127.0.0.1:9/v1", model="m")
    with FleetMemory(Config(database_url=db_url), embedder=HashingEmbedder(), llm=config) as memory:
        assert memory.llm is not None and memory.config.llm == config
