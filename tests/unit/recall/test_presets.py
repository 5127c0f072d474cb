"""Presets are frozen, named, and varied per call without touching the shared value."""

import dataclasses

import pytest

from fleet_memory.errors import InvalidInputError
from fleet_memory.recall.presets import BALANCED, PRESETS, get_preset


def test_presets_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        BALANCED.max_hops = 7  # type: ignore[misc]
    with pytest.raises(TypeError):
        PRESETS["mine"] = BALANCED  # type: ignore[index]


def test_varying_a_preset_leaves_the_shared_one_alone() -> None:
    mine = dataclasses.replace(get_preset("balanced"), max_hops=2)
    assert get_preset(mine).max_hops == 2
    assert get_preset("balanced").max_hops == BALANCED.max_hops != 2


def test_unknown_or_broken_presets_are_refused() -> None:
    with pytest.raises(InvalidInputError, match="preset"):
        get_preset("turbo")
    with pytest.raises(InvalidInputError, match="decay"):
        get_preset(dataclasses.replace(BALANCED, decay=0.0))
    with pytest.raises(InvalidInputError, match="max_hops"):
        get_preset(dataclasses.replace(BALANCED, max_hops=-1))
    with pytest.raises(InvalidInputError, match="newer_leads_cosine"):
        get_preset(dataclasses.replace(BALANCED, newer_leads_cosine=-0.1))
    with pytest.raises(InvalidInputError, match="newer_leads_value_similarity"):
        get_preset(dataclasses.replace(BALANCED, newer_leads_value_similarity=1.5))
