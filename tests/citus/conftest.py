"""The tests of this folder need the real Citus cluster of ``make test-citus``; skipped elsewhere."""

from __future__ import annotations

import pytest

from tests.support import citus


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if citus.cluster_url():
        return
    skip = pytest.mark.skip(reason="needs the Citus cluster of make test-citus (tests/citus/cluster.sh)")
    for item in items:
        if "tests/citus/" in item.nodeid:
            item.add_marker(skip)
