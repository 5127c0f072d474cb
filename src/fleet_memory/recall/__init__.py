"""Recall: entry points → spreading activation (pure) → scoring (pure, can explain itself)."""

from .request import SearchRequest, build_request
from .search import Recaller

__all__ = ["Recaller", "SearchRequest", "build_request"]
