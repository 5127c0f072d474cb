"""Rules over English text that ingest, recall and lifecycle share, so each has one home: the
sentence splitter, the greeting / filler / reaction filter and the month-name table. Pure, no
model, no I/O; below every package that uses them (it imports nothing of fleet_memory)."""

from .filler import is_filler
from .months import MONTH_NAMES, MONTHS
from .sentences import split_sentences

__all__ = ["MONTHS", "MONTH_NAMES", "is_filler", "split_sentences"]
