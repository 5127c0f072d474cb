"""Month names: the twelve full names in order, and a table from every name a text may use (full
name, three-letter abbreviation, "sept") to the month's number, 1-12. Lower case."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["MONTH_NAMES", "MONTHS"]

MONTH_NAMES: tuple[str, ...] = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
    "november", "december",
)


def _table() -> dict[str, int]:
    table = {name: number for number, name in enumerate(MONTH_NAMES, start=1)}
    table.update({name[:3]: number for name, number in list(table.items())})
    table["sept"] = 9
    return table


MONTHS: Mapping[str, int] = MappingProxyType(_table())
