"""Property: any one column of any exported row, set to a value at or beyond some column's limits,
is either refused naming its line (and nothing is stored) or imported and then readable through
every route."""

from __future__ import annotations

import json
import uuid

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fleet_memory import InvalidInputError
from fleet_memory.transfer.checks import MAX_COUNT

from .test_import_limits import ITEMS, every_route_works, export_lines

EDGES = [
    # timestamps: the calendar's ends, one microsecond or one zone beyond, and PostgreSQL's specials
    "0001-01-01T00:00:00+00:00", "9999-12-31T23:59:59.999999+00:00", "0001-01-01T00:00:00+01:00",
    "9999-12-31T23:59:59-01:00", "10000-01-01T00:00:00+00:00", "0000-12-31T00:00:00+00:00", "infinity",
    "-infinity", "epoch", "now", "2024-02-30T00:00:00Z", "2024-05-08", "20240508T135600",
    # counts and orders: zero, the ceiling, the column types' ends
    0, 1, -1, MAX_COUNT, MAX_COUNT + 1, 2**31 - 1, 2**31, 2**63 - 1, 2**63, -(2**63) - 1, "5",
    # fractions: the unit interval's ends, real's range, non-numbers
    0.0, -0.0, 1.0, 1.0000001, -1e-9, 1e-45, 1e-50, 3.4e38, 1e39, 1.5, "NaN", "Infinity", True,
    # texts, ids, objects
    "", " ", "..", "\u0000", "é\u2028x", "x" * 5_000, str(uuid.UUID(int=0)), "not-a-uuid", "[1,2,3]",
    None, [], {}, {"k": "\u0000"}, ["a", None],
]

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@given(data=st.data())
@SETTINGS
def test_an_edge_value_is_refused_naming_its_line_or_readable_everywhere(memory, data) -> None:
    if not memory.stats("src").units:
        memory.put_many(ITEMS, agent_id="src")
    lines = export_lines(memory, "src")
    number = data.draw(st.integers(2, len(lines)), label="line")
    record = json.loads(lines[number - 1])
    column = data.draw(st.sampled_from(sorted(record["row"])), label=f"{record['table']} column")
    record["row"][column] = data.draw(st.sampled_from(EDGES), label="value")
    lines[number - 1] = json.dumps(record)
    tenant = f"tenant-{uuid.uuid4().hex[:8]}"
    try:
        memory.import_agent(tenant, lines)
    except InvalidInputError as exc:
        assert exc.field == f"line {number}", exc
        assert memory.stats(tenant).units == 0 and not memory.list_entities(tenant)
        return
    every_route_works(memory, tenant)
