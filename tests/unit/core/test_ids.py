import uuid

from fleet_memory.ids import new_ids


def test_new_ids_are_distinct_random_version_4_uuids():
    ids = new_ids(5000)
    assert len(ids) == len(set(ids)) == 5000
    assert all(i.version == 4 and i.variant == uuid.RFC_4122 for i in ids)
    assert new_ids(0) == []

