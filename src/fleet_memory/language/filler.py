"""The greeting / filler / reaction filter, for ingestion (which stores only sentences with
substance) and for conversation extraction (which makes memories only of them).

A sentence is filler when, after removing words of a fixed filler vocabulary ("hi", "thanks",
"wow", "great", "sorry", "you", "too" …) and — when it opens with a greeting or reaction — the
capitalised words that address someone ("Hey Mel!"), no word is left, or when it is one of a few
stock pleasantries, questions or replies, perhaps addressed to someone ("How have you been?",
"What about you?", "No worries, Jon!", "Got it."). "Hey!", "Thanks so much!", "Wow, that's great!",
"Sorry to hear that." are filler; "Wow, love that painting!" keeps "painting" and is not; "Got it
working." is not a stock reply. Linear in the sentence; no model.
"""

from __future__ import annotations

import re

__all__ = ["is_filler"]

_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?")
_OPENERS = {
    "hi", "hey", "hello", "hiya", "yo", "howdy", "thanks", "thank", "thx", "wow", "oh", "aw", "aww", "omg", "ooh",
    "yay", "haha", "lol", "congrats", "congratulations", "bye", "goodbye", "good", "great", "awesome", "nice",
    "cool", "amazing", "hope", "glad", "so", "yeah", "yes", "sure", "ok", "okay", "love", "that", "that's",
    "sorry",
}
_FILLER = _OPENERS | {  # each word once; the openers are filler too
    "hahaha", "hehe", "ah", "hmm", "um", "uh", "yep", "yup", "no", "nope", "alright", "you", "your", "you're", "ya",
    "too", "much", "very", "really", "such", "it", "it's", "is", "was", "sounds", "sound", "a", "an", "the", "to",
    "see", "hear", "happy", "for", "me", "i", "i'm", "am", "totally", "absolutely", "definitely", "indeed", "right",
    "true", "agreed", "welcome", "take", "care", "morning", "afternoon", "evening", "night", "day", "have", "talk",
    "later", "soon", "catch", "up", "again", "all", "well", "of", "course", "and", "as", "always", "just", "what's",
    "whats", "how", "are", "been", "doing", "going", "new", "anything", "about", "what", "man", "dude", "buddy",
    "friend", "guys", "everyone", "there", "pleasure", "likewise", "same", "here", "wonderful", "fantastic",
    "lovely", "sweet", "perfect", "incredible", "beautiful", "excellent", "fun", "exciting", "interesting", "with",
    "things", "everything", "this", "appreciate", "both", "we", "us", "our", "can't", "wait", "bet", "must", "be",
    "feel", "feels", "means", "lot", "kind", "words", "support", "supportive", "tell", "more", "super", "keep",
    "on", "mind", "hearing", "seeing", "get", "yours", "do", "did", "luck", "best",
}
_STOCK = re.compile(
    r"^(?i:how (are|have) you( been| doing)?|how's it going|what's up|what about you|how about you|and you|you\??"
    r"|anything new|what's new|how's everything|how are things"
    r"|no (problem|prob|worries)|sounds good|got it|good to know|makes sense|of course|you're welcome|i see)"
    r"(,?\s+[A-Z][a-z]+)?[\s?!.,]*$"
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
    if _STOCK.match(core.strip()):
        return True
    for i, word in enumerate(words):
        low = word.lower()
        if low in _FILLER:
            continue
        if vocative and i > 0 and word[0].isupper():
            continue
        return False
    return True
