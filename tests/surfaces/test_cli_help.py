"""Every option and argument of every command says what it is for, and user-facing help never
talks about "the seed", a word users do not know."""

from __future__ import annotations

import typer.main

from fleet_memory.cli import app


def _commands(command, path: str = "fleet-memory"):
    yield path, command
    if hasattr(command, "commands"):
        for name, sub in command.commands.items():
            yield from _commands(sub, f"{path} {name}")


def test_every_parameter_has_help():
    missing = []
    for path, command in _commands(typer.main.get_command(app)):
        assert command.help, f"{path} has no help"
        for param in command.params:
            if param.name in ("help",):
                continue
            if not (getattr(param, "help", None) or "").strip():
                missing.append(f"{path} {param.name}")
    assert missing == []


def test_help_never_mentions_the_seed():
    for path, command in _commands(typer.main.get_command(app)):
        texts = [command.help or ""] + [getattr(p, "help", "") or "" for p in command.params]
        assert not any("seed" in t.lower() for t in texts), path
