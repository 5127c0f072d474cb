"""Chat that only sounds like a change, with the real models: a "since"
that opens a clause ("since we last talked"), a change verb that is negated ("won't quit"), a
"new" on something else than what both units are about, joining or quitting what no employer
names, a subject that names no holder ("it", "you", "that", "a lot"), a request that gives no value
("Let Mia know …"), and, for the masked texts, a unit that names no value but its holder — none of
them supersedes. The changes beside them still do."""

from __future__ import annotations

import pytest

from fleet_memory.ingest.change_rule import Fact, states_value
from fleet_memory.providers.nlp import SpacyNLP
from tests.support.superseding import JUNE_2024, superseded

pytestmark = pytest.mark.models


@pytest.mark.parametrize(("older", "newer"), [
    ("It has been a hectic week since we talked.", "A lot has been going on since we last talked."),
    ("I love my Tuesday running club.", "I'm not going to quit my running club."),
    ("I love fantasy books.", "I always want new book recommendations."),
    ("Omar is so thrilled about it!", "Omar is really excited about it now!"),  # masked 0.91, no value
    ("Tim joined a travel club!", "Tim joined a hiking group last week."),  # no employer joined
    ("Jon won't quit on his dreams.", "Jon won't quit, whatever happens."),
    # a subject that names no holder ("it", "you", "that") is no one's own statement
    ("It's always fun experimenting in the kitchen.", "It's actually kind of fun."),
    ("You're really making a difference.", "You're really enthusiastic about making a change now."),
    ("That was a great experience.", "That was a moving experience for all of us, actually."),
    ("A lot has happened since we talked.", "A lot happened since our last chat, actually."),  # "a lot" holds nothing
    ("Something big happened at my work.", "Something new happened at my work now."),
    ("Let Mia know if there's anything else she can do!", "Let Mia know if you need any advice to get started."),
    ("Keep going and don't give up on your dreams!", "Keep going now, and don't give up on the dream."),  # requests
])
def test_chat_that_only_sounds_like_a_change_supersedes_nothing(real_memory, older, newer) -> None:
    assert not superseded(real_memory, older, newer)


@pytest.mark.parametrize(("older", "newer"), [
    ("My dentist is Dr Park.", "I have a new dentist now, Dr Mensah."),
    ("I run with the Tuesday club.", "I quit the Tuesday club and run alone now."),
    ("I work at Google.", "I left Google and joined Meta."),
    ("Use kim.l@outlook.com for anything personal.", "Personal mail goes to kiml@proton.me these days."),
])
def test_the_changes_beside_them_still_supersede(real_memory, older, newer) -> None:
    assert superseded(real_memory, older, newer)


def test_a_value_is_named_beyond_its_holder() -> None:
    texts = ["I drive a Honda Civic.", "Our letting agent is Hamptons now.", "Lena couldn't agree more!",
             "Hey Marco, long time no talk!", "Seven years now, and Mel has found her calling."]
    parsed = SpacyNLP().parse(texts)
    values = [states_value(Fact(None, t, JUNE_2024, p)) for t, p in zip(texts, parsed)]
    assert values == [True, True, False, False, False]
