"""One agent per statement. A Citus coordinator routes a statement to one shard (and runs any SQL
there) when every distributed table in it is filtered by ``agent_id = <parameter>`` with the same
value; a statement over an array of agents joined through ``unnest`` is a multi-shard join Citus
refuses ("complex joins are only supported when ..."). So a batch that may hold several agents runs
its statement once per agent, with ``agent_id`` as a parameter: on plain PostgreSQL the same rows,
one statement for the usual one-agent batch."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["by_agent"]


def by_agent(agent_ids: Iterable[str]) -> dict[str, list[int]]:
    """The positions of each agent in ``agent_ids``, agents in the order first seen."""
    positions: dict[str, list[int]] = {}
    for p, agent_id in enumerate(agent_ids):
        positions.setdefault(agent_id, []).append(p)
    return positions
