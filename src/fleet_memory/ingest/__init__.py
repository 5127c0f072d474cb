"""Ingestion: raw content → facts → units with embeddings → stored, in one transaction per call."""

from .pipeline import Ingestor
from .records import Episode

__all__ = ["Episode", "Ingestor"]
