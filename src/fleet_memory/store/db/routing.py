"""One agent per statement. A Citus coordinator routes a statement to one shard (and runs any SQL
there) when every distributed table in it is filtered by ``agent_id = <parameter>`` with the same
value; a statement over an array of agents joined through ``unnest`` is a multi-shard join Citus
refuses ("complex joins are only supported when ..."). So a batch that may hold several agents runs
its statement once per agent, with ``agent_id`` as a parameter: on plain PostgreSQL the same rows,
one statement for the usual one-agent batch.

A refusal comes back from a shard differently: the constraint it names is the shard's copy
(``<name>_<shard id>``), the error carries no constraint name, and when the coordinator copied the
rows (``COPY``, ``INSERT ... SELECT``) it is an internal error whose message is the shard's.
``violates`` and ``REFUSED`` read both forms."""

from __future__ import annotations

import re
from collections.abc import Iterable

import psycopg

__all__ = ["REFUSED", "by_agent", "violates"]

REFUSED = (psycopg.errors.IntegrityError, psycopg.errors.DataError, psycopg.errors.InternalError_)
"""A row the database refused: a constraint or a value, or (``InternalError_``) either as a Citus
coordinator relays it from a shard after copying rows there."""


def by_agent(agent_ids: Iterable[str]) -> dict[str, list[int]]:
    """The positions of each agent in ``agent_ids``, agents in the order first seen."""
    positions: dict[str, list[int]] = {}
    for p, agent_id in enumerate(agent_ids):
        positions.setdefault(agent_id, []).append(p)
    return positions


def violates(exc: psycopg.Error, constraint: str) -> bool:
    """Whether ``exc`` is a violation of ``constraint`` (a unique index, a check), on PostgreSQL or
    from a shard of a Citus cluster."""
    if exc.diag.constraint_name == constraint:
        return True
    if not isinstance(exc, (psycopg.errors.IntegrityError, psycopg.errors.InternalError_)):
        return False
    return re.search(rf'constraint "{re.escape(constraint)}_\d+"', str(exc)) is not None
