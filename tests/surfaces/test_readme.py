"""The README's front-door examples, executed: the command-line block line by line (typer's runner
on the test database; other shell lines through bash). The REST example runs against a real
server in ``tests/docs/test_readme_rest``, the MCP configuration in ``test_mcp``."""

from __future__ import annotations

import re
import shlex
import subprocess

import pytest

from .conftest import REPO

README = (REPO / "README.md").read_text("utf-8")


def section(title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## )", README, flags=re.S | re.M)
    assert match, f"README has no section {title!r}"
    return match.group(1)


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


def run_shell_block(block: str, cli, cwd) -> list:
    results = []
    for line in block.strip().splitlines():
        for command in line.split(" && "):
            words = shlex.split(command, comments=True)
            if words[:1] == ["fleet-memory"]:
                if words[1] in ("serve", "mcp"):  # long-running servers: started by their own tests
                    continue
                result = cli(*words[1:])
                assert result.exit_code == 0, f"{command}\n{result.output}"
                results.append(result)
            else:
                subprocess.run(["bash", "-c", command], cwd=cwd, check=True)
    return results


@pytest.mark.processes
def test_command_line_examples_run(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    [block] = blocks(section("Command line"), "bash")
    run_shell_block(block, cli, tmp_path)
    assert (tmp_path / "alice.html").exists() and (tmp_path / "alice.png").stat().st_size > 0
    copy = cli("list", "-a", "agent_1_copy", "--json")
    assert copy.exit_code == 0 and '"Alice' in copy.stdout


@pytest.mark.parametrize("title", ["Command line", "REST server", "MCP server", "Pictures of the memory graph"])
def test_each_front_door_has_a_section(title):
    assert len(section(title).strip()) > 200
