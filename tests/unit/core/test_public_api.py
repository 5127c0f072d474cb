"""The public API: what ``fleet_memory`` exports, and nothing loaded at import."""

import fleet_memory


def test_exported_names_resolve():
    for name in fleet_memory.__all__:
        assert getattr(fleet_memory, name) is not None, name


def test_seed_name_is_the_facade():
    assert fleet_memory.TemporalSemanticMemory is fleet_memory.FleetMemory
