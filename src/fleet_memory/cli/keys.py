"""``keys create|list|revoke``: API keys for the REST and MCP servers. A key is shown once."""

from __future__ import annotations

import typer
from rich.table import Table

from .common import JSON, console, memory_from, plain, print_json

app = typer.Typer(help="API keys for 'serve' (stored hashed, scoped to agents).", no_args_is_help=True)


@app.command("create")
def create(ctx: typer.Context, name: str = typer.Option(..., help="What the key is for."),
           agent: list[str] = typer.Option([], "--agent", "-a", help="An agent the key may act for (repeatable)."),
           admin: bool = typer.Option(False, help="May act for every agent."),
           key_only: bool = typer.Option(False, "--key-only", help="Print only the key (for export VAR=$(...))."),
           as_json: bool = JSON) -> None:
    """Create a key and print it once; only its hash is stored."""
    with memory_from(ctx) as memory:
        secret, record = memory.create_api_key(name, agent_ids=agent, admin=admin)
    if key_only:
        return typer.echo(secret)
    if as_json:
        return print_json({"key": secret, **plain(record)})
    console().print(f"{secret}\n(shown only now; key id {record.id}, prefix {record.prefix})")


@app.command("list")
def list_(ctx: typer.Context, include_revoked: bool = typer.Option(False, help="Also list revoked keys."),
          as_json: bool = JSON) -> None:
    """List keys (never the secrets)."""
    with memory_from(ctx) as memory:
        records = memory.list_api_keys(include_revoked=include_revoked)
    if as_json:
        return print_json(records)
    table = Table("id", "prefix", "name", "agents", "created", "revoked")
    for r in records:
        table.add_row(str(r.id), r.prefix, r.name, "ALL (admin)" if r.admin else ", ".join(r.agent_ids),
                      r.created_at.isoformat(timespec="seconds"), r.revoked_at.isoformat(timespec="seconds")
                      if r.revoked_at else "")
    console().print(table)


@app.command("revoke")
def revoke(ctx: typer.Context, key: str = typer.Argument(..., help="Key id or prefix.")) -> None:
    """Revoke a key; requests with it get 401 from now on."""
    with memory_from(ctx) as memory:
        memory.revoke_api_key(key)
    console().print(f"revoked {key}")
