"""Random (version 4) UUIDs, as many as a caller needs at a time.

``uuid.uuid4()`` reads 16 bytes from the OS on every call, and the read lets go of the interpreter
lock and takes it straight back. A loop calling it once per row (a put of 2 MB creates about
100,000 entities and 140,000 units) kept every other thread of the process waiting for 0.2–0.3 s
at a time: a thread waiting for the lock asks for it only when no hand-over happened during the
switch interval, and each of those reads counts as one. In ``fleet-memory serve`` the other agents'
searches stalled behind those loops. ``new_ids`` reads the randomness for all of them in one call.
"""

from __future__ import annotations

import os
import uuid

__all__ = ["new_ids"]


def new_ids(n: int) -> list[uuid.UUID]:
    """``n`` random version-4 UUIDs (``uuid.uuid4``'s), from one read of the OS's randomness."""
    raw = os.urandom(16 * n)
    return [uuid.UUID(bytes=raw[i:i + 16], version=4) for i in range(0, 16 * n, 16)]

