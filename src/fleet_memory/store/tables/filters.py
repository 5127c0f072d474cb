"""``UnitFilter`` → a SQL WHERE fragment over ``memory_units`` (alias ``u``).

Filters apply inside the query, before ranking, never by cutting a ranked list. ``min_importance``
is applied to the *effective* importance (the stored base decayed along the forgetting curve from
the last access, or from creation when never accessed), computed in SQL at ``now``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from psycopg import sql
from psycopg.types.json import Jsonb

__all__ = ["UnitFilter", "where_clause", "effective_importance_sql", "is_plain"]


@dataclass(frozen=True, slots=True)
class UnitFilter:
    types: tuple[str, ...] | None = None
    min_importance: float | None = None
    since: datetime | None = None
    until: datetime | None = None
    tags: tuple[str, ...] | None = None
    user_id: str | None = None
    session_id: str | None = None
    include_archived: bool = False
    metadata: tuple[tuple[str, Any], ...] | None = None  # each key equal to its value
    now: datetime | None = None
    decay_rate: float = 0.02
    procedural_decay_rate: float = 0.005
    # facts that change: ``as_of`` keeps the units current then (stated by then, not yet superseded);
    # ``current_at`` hides units superseded by then (``include_superseded=False``)
    as_of: datetime | None = None
    current_at: datetime | None = None
    text_query: str | None = None  # full text: web-search syntax over ``tsv`` (English stemming)


_FIRST, _LAST = "0001-01-01 00:00:00+00", "9999-12-31 23:59:59+00"
_MAX_EXPONENT = 300
"""The curve's exponent stops at 300 (a factor of 5e-131): ``exp`` of a larger one, or its product
with a small importance, underflows, which PostgreSQL reports as an error, not as 0. Below the
floor every effective importance is under 5e-131, so no threshold a caller can mean changes."""


def effective_importance_sql(alias: str = "u") -> sql.Composable:
    """Effective importance at ``%(now)s``: importance × exp(−rate × days since last access).
    Safe for any stored value: the access time is read within the years 1 to 9999 (``infinity``
    included), days never count negative, and the exponent stops at ``_MAX_EXPONENT``."""
    a = sql.Identifier(alias)
    return sql.SQL(
        "({a}.importance * exp(-least({top}, (CASE WHEN {a}.memory_type = 'procedural' THEN %(proc_rate)s"
        " ELSE %(rate)s END) * greatest(0, extract(epoch FROM (%(now)s - least({last}::timestamptz,"
        " greatest({first}::timestamptz, coalesce({a}.last_accessed, {a}.created_at))))) / 86400.0))))"
    ).format(a=a, top=sql.Literal(_MAX_EXPONENT), first=sql.Literal(_FIRST), last=sql.Literal(_LAST))


def is_plain(flt: UnitFilter | None) -> bool:
    """Whether the filter keeps nearly every unit of the agent: nothing but the defaults, which
    leave out archived units and (``current_at``) superseded ones, a minority of any agent."""
    flt = flt or UnitFilter()
    return all(value is None for value in (flt.types, flt.min_importance, flt.since, flt.until, flt.tags,
                                           flt.user_id, flt.session_id, flt.metadata, flt.as_of,
                                           flt.text_query))


def where_clause(agent_id: str, flt: UnitFilter | None, alias: str = "u") -> tuple[sql.Composable, dict]:
    """Return the WHERE condition (without the keyword) and its named parameters."""
    a = sql.Identifier(alias)
    parts: list[sql.Composable] = [sql.SQL("{a}.agent_id = %(agent_id)s").format(a=a)]
    params: dict = {"agent_id": agent_id}
    flt = flt or UnitFilter()
    if not flt.include_archived:
        parts.append(sql.SQL("{a}.archived_at IS NULL").format(a=a))
    for name, condition, value in (
        ("types", "{a}.memory_type = ANY(%(types)s)", list(flt.types) if flt.types else None),
        ("since", "{a}.event_date >= %(since)s", flt.since),
        ("until", "{a}.event_date <= %(until)s", flt.until),
        ("tags", "{a}.tags @> %(tags)s", list(flt.tags) if flt.tags else None),
        ("user_id", "{a}.user_id = %(user_id)s", flt.user_id),
        ("session_id", "{a}.session_id = %(session_id)s", flt.session_id),
        ("metadata", "{a}.metadata @> %(metadata)s", Jsonb(dict(flt.metadata)) if flt.metadata else None),
        ("text_query", "{a}.tsv @@ websearch_to_tsquery('english', %(text_query)s)", flt.text_query),
    ):
        if value is not None:
            parts.append(sql.SQL(condition).format(a=a))
            params[name] = value
    if flt.as_of is not None:
        parts.append(sql.SQL("{a}.event_date <= %(as_of)s AND ({a}.valid_until IS NULL OR {a}.valid_until > %(as_of)s)")
                     .format(a=a))
        params["as_of"] = flt.as_of
    if flt.current_at is not None:
        parts.append(sql.SQL("({a}.valid_until IS NULL OR {a}.valid_until > %(current_at)s)").format(a=a))
        params["current_at"] = flt.current_at
    if flt.min_importance is not None:
        parts.append(sql.SQL("{eff} >= %(min_importance)s").format(eff=effective_importance_sql(alias)))
        params.update(
            min_importance=flt.min_importance,
            now=flt.now,
            rate=flt.decay_rate,
            proc_rate=flt.procedural_decay_rate,
        )
    return sql.SQL(" AND ").join(parts), params
