"""Rules over English text that ingest, recall and lifecycle share, so each has one home: the
sentence splitter, the greeting / filler / reaction filter, the month-name table, the
date-expression parser and a verb's third person. Pure, no model, no I/O; below every package
that uses them (it imports nothing of fleet_memory)."""

from .dates import DateExpression, find_dates
from .filler import is_filler
from .months import MONTH_NAMES, MONTHS
from .sentences import split_sentences
from .verbs import third_person

__all__ = ["DateExpression", "MONTHS", "MONTH_NAMES", "find_dates", "is_filler", "split_sentences", "third_person"]
