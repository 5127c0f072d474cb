"""Recall: entry points → spreading activation (pure) → scoring (pure, can explain itself)."""

from .presets import PRESETS, RecallSettings, get_preset
from .request import SearchRequest, build_request
from .search import Recaller

__all__ = ["PRESETS", "Recaller", "RecallSettings", "SearchRequest", "build_request", "get_preset"]
