"""A verb put into the third person singular, for a subject that becomes a name: "I love" →
"Melanie loves", "I've" → "Melanie has", "go" → "goes", "study" → "studies"."""

from __future__ import annotations

__all__ = ["AGREE", "third_person"]

AGREE = {"am": "is", "'m": "is", "’m": "is", "are": "is", "'re": "is", "have": "has", "'ve": "has", "’ve": "has",
         "do": "does", "'ll": "will", "’ll": "will", "'d": "would", "’d": "would", "go": "goes", "were": "was"}


def third_person(word: str) -> str:
    """``word`` (a verb in the base form or a first-person form, a contraction included) in the third
    person singular, its case kept for the regular forms."""
    low = word.lower()
    if low in AGREE:
        return AGREE[low]
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return word + "es"
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"
