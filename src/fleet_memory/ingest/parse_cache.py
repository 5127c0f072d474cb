"""Supersession's parses of older units, kept between puts (``CachedNLP``).

A put's supersession parses the units it compares, and the candidates are older units that come up
again and again: the unit that says where someone works is a candidate for every later message
about work. Their parse was most of the stage, so the ingestor keeps the last few thousand, and
hands over the parse of each unit written that the parse step's parse gives (``assemble._parse_of``:
its sentence's parse, with coreference's edits applied when it has some)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence

from ..providers.nlp import NLP, Parsed

__all__ = ["CachedNLP"]


class CachedNLP:
    """Another ``NLP`` with the parses of the last ``size`` distinct texts kept (least recently used
    out), and each distinct text of a call parsed once. A parse depends on the text alone.
    Parses are small (tokens with tags and heads): 2,048 hold a few megabytes."""

    def __init__(self, nlp: NLP, size: int = 2_048) -> None:
        self.nlp, self.size = nlp, size
        self._kept: OrderedDict[str, Parsed] = OrderedDict()
        self._lock = threading.Lock()

    def parse(self, texts: Sequence[str]) -> list[Parsed]:
        distinct = list(dict.fromkeys(texts))
        with self._lock:
            found = {t: self._kept[t] for t in distinct if t in self._kept}
            for text in found:
                self._kept.move_to_end(text)
        missing = [t for t in distinct if t not in found]
        if missing:
            parsed = dict(zip(missing, self.nlp.parse(missing)))
            found.update(parsed)
            self.keep(parsed)
        return [found[t] for t in texts]

    def keep(self, parsed: Mapping[str, Parsed]) -> None:
        """Keep parses made elsewhere: a put's parse step already parsed most of its units' texts, and
        they are the next puts' candidates."""
        with self._lock:
            self._kept.update(parsed)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
