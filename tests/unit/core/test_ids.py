import uuid

from fleet_memory.ids import id_stream, new_ids


def test_new_ids_are_distinct_random_version_4_uuids():
    ids = new_ids(5000)
    assert len(ids) == len(set(ids)) == 5000
    assert all(i.version == 4 and i.variant == uuid.RFC_4122 for i in ids)
    assert new_ids(0) == []


def test_an_id_stream_goes_on_past_its_blocks():
    stream = id_stream(block=3)
    ids = [next(stream) for _ in range(10)]
    assert len(set(ids)) == 10 and all(i.version == 4 for i in ids)
