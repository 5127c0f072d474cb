"""Offline fact extraction (the default; no LLM): regex sentence splitting, then a filter that
drops greetings, filler and pure reactions and keeps everything with substance.

A sentence is filler when, after removing words of a fixed filler vocabulary ("hi", "thanks",
"wow", "great", "you", "too" …) and — when it opens with a greeting or reaction — the capitalised
words that address someone ("Hey Mel!"), no word is left, or when it is one of a few stock
pleasantry questions ("How have you been?", "What about you?"). "Hey!", "Thanks so much!",
"Wow, that's great!" are dropped; "Wow, love that painting!" keeps "painting" and stays.
Linear in the input; no model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .records import Episode, ExtractedFact
from .sentences import split_sentences

__all__ = ["extract_offline", "is_filler"]

_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?")
_OPENERS = {
    "hi", "hey", "hello", "hiya", "yo", "howdy", "thanks", "thank", "thx", "wow", "oh", "aw", "aww", "omg", "ooh",
    "yay", "haha", "lol", "congrats", "congratulations", "bye", "goodbye", "good", "great", "awesome", "nice",
    "cool", "amazing", "hope", "glad", "so", "yeah", "yes", "sure", "ok", "okay", "love", "that", "that's",
}
_FILLER = _OPENERS | {
    "hahaha", "hehe", "ah", "hmm", "um", "uh", "yep", "yup", "no", "nope", "alright", "you", "your", "you're",
    "ya", "too", "much", "very", "really", "so", "such", "it", "it's", "is", "was", "sounds", "sound", "a", "an",
    "the", "to", "see", "hear", "happy", "for", "me", "i", "i'm", "am", "totally", "absolutely", "definitely",
    "indeed", "right", "true", "agreed", "welcome", "take", "care", "morning", "afternoon", "evening", "night",
    "day", "have", "talk", "later", "soon", "catch", "up", "again", "all", "well", "of", "course", "and", "as",
    "always", "just", "what's", "whats", "how", "are", "been", "doing", "going", "new", "anything", "about",
    "what", "man", "dude", "buddy", "friend", "guys", "everyone", "there", "pleasure", "likewise", "same",
    "here", "wonderful", "fantastic", "lovely", "sweet", "perfect", "incredible", "beautiful", "excellent",
    "fun", "exciting", "interesting", "with", "things", "everything", "things", "been", "this", "wow",
    "appreciate", "it", "both", "we", "us", "our", "can't", "wait", "bet", "must", "be", "feel", "feels",
    "means", "lot", "kind", "words", "support", "supportive", "same", "tell", "more", "awesome", "super",
    "keep", "it", "on", "mind", "hearing", "seeing", "get", "yours", "do", "did", "too", "luck", "best",
}
_POLITE_QUESTIONS = re.compile(
    r"^(how (are|have) you( been| doing)?|how's it going|what's up|what about you|how about you|and you|you\??"
    r"|anything new|what's new|how's everything|how are things)[\s?!.,]*$",
    re.IGNORECASE,
)


def is_filler(sentence: str) -> bool:
    """True for greetings, filler and pure reactions; False for anything with substance."""
    text = sentence.strip()
    if not text:
        return True
    words = _WORD.findall(text.replace("’", "'"))
    if not words:
        return True
    vocative = words[0].lower() in _OPENERS
    core = re.sub(r"[,\s]+[A-Z][a-z]+[!?.]*$", "", text) if vocative else text
    if _POLITE_QUESTIONS.match(core.strip()):
        return True
    for i, word in enumerate(words):
        low = word.lower()
        if low in _FILLER:
            continue
        if vocative and i > 0 and word[0].isupper():
            continue
        return False
    return True


def extract_offline(episodes: Sequence[Episode]) -> list[ExtractedFact]:
    """Sentences with substance of every episode, in order, attributed to the episode's speaker."""
    facts: list[ExtractedFact] = []
    for index, episode in enumerate(episodes):
        for sentence in split_sentences(episode.content):
            if is_filler(sentence):
                continue
            facts.append(ExtractedFact(index, sentence, episode.memory_type, episode.importance, episode.speaker))
    return facts
