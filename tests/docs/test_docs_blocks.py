"""Every fenced block of README.md, CHANGELOG.md and docs/*.md is run or checked by a test: the
Python blocks run as written (test_readme_python), each other block has its own test below or
where it is named in CLAIMS. A new block without a test, or a claim whose block is gone, fails."""

from __future__ import annotations

import configparser
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fleet_memory import Config, FleetMemory
from fleet_memory.cli import app
from fleet_memory.providers.embedder import HashingEmbedder

from .blocks import REPO, blocks

REST = "tests/docs/test_readme_rest.py::test_rest_example_runs_as_written_on_a_fresh_server"
# (document, section, language) -> the test that runs or checks those blocks
CLAIMS = {
    ("README.md", "", "bash"): "tests/docs/test_readme_python.py::test_readme_starts_with_the_two_commands",
    ("README.md", "Install into your own project", "bash"):
        "tests/packaging/test_wheel_install.py::test_the_readme_install_block_matches_the_package",
    ("README.md", "Command line", "bash"): "tests/surfaces/test_readme.py::test_command_line_examples_run",
    ("README.md", "REST server", "bash"): REST,
    ("README.md", "REST server", "py"): REST,
    ("README.md", "MCP server", "bash"): "tests/surfaces/test_mcp.py::printed_server",
    ("README.md", "MCP server", "json"): "tests/surfaces/test_mcp.py::readme_server",
    ("README.md", "Using an LLM (optional, off unless you switch it on)", "bash"):
        "tests/docs/test_readme_python.py::test_readme_llm_settings_configure_what_they_say",
    ("docs/deploy.md", "4. Citus: distributed by `agent_id`", "sql"):
        "tests/integration/fleet/test_distribution.py::test_deploy_guide_distributes_every_table",
}
CHECKED_HERE = {  # language -> documents whose blocks of that language a test of this file checks
    "bash": {"docs/benchmarks.md", "docs/deploy.md"},  # test_bench_commands_use_real_options, test_deploy_shell
    "ini": {"docs/deploy.md"},  # test_pgbouncer_settings_are_the_tested_ones
    "text": {"docs/benchmarks.md", "docs/concepts.md"},  # output and formulas: test_text_blocks_are_not_code
}


def _unclaimed(block) -> bool:
    return (block.language != "python" and (block.path, block.section, block.language) not in CLAIMS
            and block.path not in CHECKED_HERE.get(block.language, set()))


def test_every_block_has_a_test():
    found = blocks()
    assert [b.id for b in found if _unclaimed(b)] == []
    keys = {(b.path, b.section, b.language) for b in found}
    assert [claim for claim in CLAIMS if claim not in keys] == []  # a claim whose block moved or went
    for test in CLAIMS.values():
        path, name = test.split("::")
        assert re.search(rf"^(async )?def {name}\(", (REPO / path).read_text("utf-8"), re.M), test


def test_text_blocks_are_not_code():
    """``text`` blocks are what a command printed or a formula: each follows its command or sits in
    a numbered step, and none holds a shell prompt or an import that should have been run."""
    for block in (b for b in blocks() if b.language == "text"):
        assert not re.search(r"^\s*(\$ |>>> |import |from \w+ import )", block.code, re.M), block.id


def _bench_options(script: str) -> set[str]:
    """Every option a bench script accepts, read from its argparse calls (and its helper modules')."""
    sources = [path.read_text("utf-8") for path in (REPO / "bench").glob("*.py")
               if path.name == script or path.stem in (REPO / "bench" / script).read_text("utf-8")]
    return {option for source in sources for option in re.findall(r"add_argument\(\s*\"(--[\w-]+)\"", source)}


def test_bench_commands_use_real_options():
    commands = [line for b in blocks() if b.path == "docs/benchmarks.md" and b.language == "bash"
                for line in b.code.strip().splitlines()]
    assert len(commands) >= 6
    for line in commands:
        words = shlex.split(line, comments=True)
        assert words[0] == "python" and words[1].startswith("bench/"), line
        assert (REPO / words[1]).is_file(), line
        used = {word.split("=")[0] for word in words[2:] if word.startswith("--")}
        assert used <= _bench_options(Path(words[1]).name), (line, used - _bench_options(Path(words[1]).name))


def test_deploy_shell(db_url, tmp_path):
    """The deploy guide's shell lines: each export configures what it says, each ``fleet-memory``
    command runs (the long-running ``serve`` is started by the server tests)."""
    lines = [line for b in blocks() if b.path == "docs/deploy.md" and b.language == "bash"
             for line in b.code.strip().splitlines()]
    exports = [line.split("#")[0].strip() for line in lines if line.startswith("export ")]
    show = "from fleet_memory import Config; c = Config.from_env(); print(c.database_url, c.prepared_statements)"
    script = "\n".join(exports) + f"\n{shlex.quote(sys.executable)} -c {shlex.quote(show)}"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    out = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    url = re.findall(r"FLEET_MEMORY_DATABASE_URL=(\S+)", "\n".join(exports))[-1]
    off = any("FLEET_MEMORY_PREPARED_STATEMENTS=off" in line for line in exports)
    assert out.stdout.split() == [url, str(not off)]

    runner = CliRunner()
    commands = [shlex.split(line, comments=True) for line in lines if line.startswith("fleet-memory ")]
    assert commands and all(words[1] != "serve" or "--port" in words for words in commands)
    for words in (w for w in commands if w[1] != "serve"):
        result = runner.invoke(app, words[1:], obj=lambda: FleetMemory(Config(database_url=db_url),
                                                                        embedder=HashingEmbedder()))
        assert result.exit_code == 0, (words, result.output)


def test_pgbouncer_settings_are_the_tested_ones():
    """The pgbouncer.ini of the deploy guide sets what the pooling test's PgBouncer runs with."""
    [block] = [b for b in blocks() if b.path == "docs/deploy.md" and b.language == "ini"]
    ini = configparser.ConfigParser(comment_prefixes=(";",))
    ini.read_string(block.code)
    documented = dict(ini["pgbouncer"])
    support = (REPO / "tests" / "support" / "pgbouncer.py").read_text("utf-8")
    tested = dict(re.findall(r"(\w+) = ([^\\{\n]+)\\n", support))
    assert documented["pool_mode"] == "transaction"
    for key in ("pool_mode", "ignore_startup_parameters"):
        assert documented[key] == tested[key].strip(), key


@pytest.mark.parametrize("target", ["demo", "test", "check"])
def test_the_readme_lanes_are_make_targets(target):
    makefile = (REPO / "Makefile").read_text("utf-8")
    assert re.search(rf"^{target}:", makefile, re.M)
    readme = (REPO / "README.md").read_text("utf-8")
    assert f"make {target}" in readme
