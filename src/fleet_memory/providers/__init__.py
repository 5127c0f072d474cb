"""Model providers behind seams with one required method each, loaded lazily.

- ``Embedder.embed(texts) -> np.ndarray`` (rows L2-normalised)
"""

from .embedder import Embedder, HashingEmbedder, SentenceTransformerEmbedder

__all__ = ["Embedder", "HashingEmbedder", "SentenceTransformerEmbedder"]
