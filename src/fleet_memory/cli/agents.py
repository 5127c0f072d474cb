"""``agents list|delete`` and ``forget-user``: whole agents and one user's memories."""

from __future__ import annotations

import typer

from .common import AGENT, JSON, console, memory_from, print_json
from .render import agents_table

app = typer.Typer(help="The agents in the store: list them, delete one.", no_args_is_help=True)


@app.command("list")
def list_(ctx: typer.Context, limit: int = typer.Option(100, help="At most this many."),
          offset: int = typer.Option(0, help="Skip this many (for the next page)."), as_json: bool = JSON) -> None:
    """Every agent with its unit and document counts and its last write."""
    with memory_from(ctx) as memory:
        agents = memory.list_agents(limit=limit, offset=offset)
    if as_json:
        return print_json(agents)
    console().print(agents_table(agents) if agents else "no agents yet")


@app.command("delete")
def delete(ctx: typer.Context, agent: str = typer.Argument(..., help="The agent to remove."),
           yes: bool = typer.Option(False, "--yes", help="Do not ask for confirmation."), as_json: bool = JSON) -> None:
    """Remove everything one agent has stored (documents, memories, entities, links)."""
    if not yes:
        typer.confirm(f"Delete every memory of agent {agent!r}?", abort=True)
    with memory_from(ctx) as memory:
        removed = memory.delete_agent(agent)
    if as_json:
        return print_json({"agent_id": agent, "removed": removed})
    console().print(f"deleted agent {agent!r}: {removed} memory unit(s)")


def forget_user(ctx: typer.Context,
                user_id: str = typer.Argument(..., help="The user id the memories were stored with."),
                agent: str = AGENT, as_json: bool = JSON) -> None:
    """Forget one user of an agent: their memories, what was consolidated from them, their documents."""
    with memory_from(ctx) as memory:
        removed = memory.forget_user(agent, user_id)
    if as_json:
        return print_json({"agent_id": agent, "user_id": user_id, "removed": removed})
    console().print(f"forgot user {user_id!r} of agent {agent!r}: {removed} memory unit(s) removed")
