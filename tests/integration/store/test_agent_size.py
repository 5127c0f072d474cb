"""An agent's size class and last write, and a unit's effective importance, on the embedded database."""

from __future__ import annotations

from datetime import timedelta

import pytest

from fleet_memory.errors import InvalidInputError
from fleet_memory.sizing import OWN_INDEX_UNITS, size_class


def test_a_small_agent_and_its_last_write(memory, clock):
    assert memory.agent_size("a").to_dict() == {"agent_id": "a", "units": 0, "size_class": "small",
                                                 "own_indexes": False, "boundary_units": OWN_INDEX_UNITS,
                                                 "last_write": None}
    memory.put("a", "Maria lives in Lisbon. She has a cat.")
    size = memory.agent_size("a")
    assert (size.units, size.size_class, size.own_indexes, size.last_write) == (2, "small", False, clock.now())
    assert memory.agent_size("b").units == 0  # another agent: nothing of a's


def test_the_size_boundary():
    assert [size_class(n) for n in (0, OWN_INDEX_UNITS - 1, OWN_INDEX_UNITS, 10 * OWN_INDEX_UNITS)] == [
        "small", "small", "large", "large"]


def test_effective_importance_decays_from_the_last_access(memory, clock):
    unit = memory.put("a", "Maria lives in Lisbon.", importance=0.8).units[0]
    stored = memory.get("a", unit.id)
    assert memory.effective_importance(stored) == pytest.approx(0.8)
    later = clock.now() + timedelta(days=50)
    assert memory.effective_importance(stored, now=later) == pytest.approx(0.8 * 2.718281828 ** -1)  # 0.02 a day
    assert memory.effective_importance(stored, now=later.isoformat()) < 0.3
    with pytest.raises(InvalidInputError) as bad:
        memory.effective_importance(stored, now="soon")
    assert bad.value.field == "now"
