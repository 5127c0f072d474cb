"""How a text tells a person's pronoun, and who else it mentions (ingest/genders.py): pure regex."""

import pytest

from fleet_memory.ingest.genders import (is_kept_thing, is_person_role, named_by_role, names_a_pet_or_a_ship,
                                         names_a_scene, only_as_place, only_as_topic, other_people, pronouns_in,
                                         referred_by_subject, role_gender, serves, speaks_of_anyone, title_gender,
                                         unnamed_people, with_title, without_title)


@pytest.mark.parametrize("text, names, expected", [
    ("My cousin Ravi, he just started as a nurse.", ["Ravi"], {"Ravi": "m"}),
    ("My sister Priya has started pottery classes.", ["Priya"], {"Priya": "f"}),
    ("Declan, my brother, fixed the boiler.", ["Declan"], {"Declan": "m"}),
    ("My landlord Mr Hughes came to fix the window.", ["Hughes"], {"Hughes": "m"}),
    ("Robin lost her keys at the station again.", ["Robin"], {"Robin": "f"}),
    ("Anna introduced me to her friend Beth.", ["Anna", "Beth"], {"Anna": "f"}),
    ("Tom told Sarah about his trip.", ["Tom", "Sarah"], {}),  # "his" follows Sarah, who is not the subject
    ("Our plumber, Declan, fixed the boiler at last.", ["Declan"], {}),  # a neutral role says nothing
])
def test_the_pronoun_a_text_uses_for_a_person(text, names, expected) -> None:
    assert pronouns_in(text, names) == expected


@pytest.mark.parametrize("text, names, expected", [
    ("My dad and my uncle Frank went fishing on Saturday.", ["Frank"], ["m"]),
    ("My mate Jake and my cousin Tom came over.", ["Tom"], [None]),  # a name the NER missed
    ("My mate Jake and my cousin Tom came over.", ["Jake", "Tom"], []),
    ("My son's teacher, Mr Doyle, called about the play.", ["Doyle"], []),  # the son is a possessor
    ("Booked my trip to Paris with my sister Ana.", ["Ana"], []),
    ("Called my mum, she is fine.", [], ["f"]),
    ("My brother-in-law Kwame is training for an Ironman.", ["Kwame"], []),  # one man, not two
    ("Called my brother-in-law about the van.", [], ["m"]),
])
def test_the_other_people_a_text_mentions(text, names, expected) -> None:
    assert other_people(text, names) == expected


def test_a_name_used_only_as_a_place() -> None:
    assert only_as_place("Ines lives in Porto now, in a flat in Bonfim.", "Bonfim")
    assert not only_as_place("Ines lives in Porto now, in a flat in Bonfim.", "Ines")
    assert not only_as_place("Dinner at Tom's, then Tom drove me home.", "Tom")
    assert not only_as_place("Bumped into Theo from my old running club.", "Theo")  # met, not a place
    assert not only_as_place("Ran into Sophie at the market.", "Sophie")
    assert only_as_place("We moved into Bonfim in May.", "Bonfim")


@pytest.mark.parametrize("text, expected", [
    ("My mother-in-law Keiko is visiting.", [("Keiko", "Keiko", "f")]),
    ("Can you plan a surprise for my cousin Ravi's 30th?", [("Ravi", "Ravi", None)]),
    ("Our Arabic tutor, Mr Haddad, has suggested it.", [("Haddad", "Mr Haddad", "m")]),
    ("My PhD supervisor, Prof. Adeyemi, wants it.", [("Adeyemi", "Prof. Adeyemi", None)]),
    ("My brothers Kenji and Daisuke are coming.", [("Kenji", "Kenji", "m"), ("Daisuke", "Daisuke", "m")]),
    ("Dr Vasquez, my dentist, said I need a crown.", [("Vasquez", "Dr Vasquez", None)]),
    ("The mechanic, a guy called Giorgos, says so.", [("Giorgos", "Giorgos", "m")]),
    ("My partner's mum Hiroko is visiting from Osaka.", [("Hiroko", "Hiroko", "f")]),  # a relation's relation
    ("My son's football coach, Marek, asked me.", [("Marek", "Marek", None)]),
    ("My son's best friend's dad, Rajesh, can drive.", [("Rajesh", "Rajesh", "m")]),
    ("My mum's car Betsy broke down.", []),  # the last word before the name is no person's role
    ("I help the coordinator, Agnieszka, with the rota.", [("Agnieszka", "Agnieszka", None)]),
    ("A message to Ms Lindqvist, the piano teacher, about lessons.", [("Lindqvist", "Ms Lindqvist", "f")]),
    ("Our neighbour across the road, Mrs Adeyemi, offered.", [("Adeyemi", "Mrs Adeyemi", "f")]),  # a title alone
    ("Nana Beatriz still does the crossword.", [("Beatriz", "Beatriz", "f")]),
    ("Paris, the capital of France, in the rain.", []),
    ("We reported it in January, the letting agent came round.", []),  # a month, not a person
    ("Dinner with Maria, my sister, on Friday.", [("Maria", "Maria", "f")]),
    ("Uncle Dev lent me his telescope; Grandma Rose approved.", [("Dev", "Dev", "m"), ("Rose", "Rose", "f")]),
    ("Visited Saint Petersburg and New York.", []),
    ("My cousin Layla and her best friend Nadia are coming.", [("Layla", "Layla", None), ("Nadia", "Nadia", None)]),
    ("My favourite band Coldplay is touring.", []),  # not a person's role
    ("Can you cover my shift next Thursday?", []),
    ("Paris, my favourite city, in the rain.", []),
    ("Our mortgage adviser, Sanjay, is sending the decision.", [("Sanjay", "Sanjay", None)]),
    ("Sergei, our chess club captain, picked the team.", [("Sergei", "Sergei", None)]),
    # an address before a role names no one: the coordinator is the person here, not "Road"
    ("I volunteer at the food bank on Albert Road, the coordinator there is lovely.", []),
    ("Dinner near Bold Street, the waiter was rude.", []),
    ("The food bank's great, the coordinator there, Yusuf, is lovely.", [("Yusuf", "Yusuf", None)]),
    ("The landlady there was grumpy, Tom said we should leave a review.", []),  # Tom is no landlady
    ("Got a text from Maria, my neighbour, about the bins.", [("Maria", "Maria", None)]),
    ("The café has a new barista called Paris, lovely lad.", [("Paris", "Paris", None)]),
])
def test_the_people_a_text_names_beside_a_role(text, expected) -> None:
    assert list(named_by_role(text)) == expected


@pytest.mark.parametrize("text, name, others, expected", [
    ("Had lunch with Mateo from work today and he recommended a book.", "Mateo", [], True),
    ("Quick context: Yusuf is my team lead, he's the one who approves my leave.", "Yusuf", [], True),
    ("We flew to Lisbon and she loved it.", "Lisbon", [], False),  # a place
    ("Is the Louvre open today? She wants to go.", "Louvre", [], False),  # after an article
    ("Spotify sent her a bill.", "Spotify", [], False),  # an object pronoun says less
    ("Mateo introduced me to Ana and she was lovely.", "Mateo", ["Ana"], False),  # another name between
    ("Nobody here by that name.", "Mateo", [], False),
])
def test_a_name_the_text_refers_back_to_as_he_or_she(text, name, others, expected) -> None:
    assert referred_by_subject(text, name, others) is expected


def test_a_title_stays_with_the_name() -> None:
    assert with_title("Dr Nakamura at the clinic told me to cut back.", "Nakamura") == "Dr Nakamura"
    assert with_title("Nakamura told me to cut back.", "Nakamura") == "Nakamura"
    assert [without_title(s) for s in ("Mr Haddad", "Dr. Nakamura", "Professor Adeyemi", "Haddad", "Mrs")] == [
        "Haddad", "Nakamura", "Adeyemi", None, None]
    # sporting, religious and honorific titles too; only a gendered one gives a pronoun
    assert with_title("Coach Delgado says practice moves to Sunday.", "Delgado") == "Coach Delgado"
    assert without_title("Rabbi Feldman") == "Feldman" and title_gender("Rabbi Feldman") is None
    assert title_gender("Father Brendan") == "m"


def test_the_people_a_text_names_by_a_role_alone() -> None:
    assert list(unnamed_people("Had a long call with my mum about the garden.")) == [("my mum", "f")]
    assert list(unnamed_people("My dad and my uncle Frank went fishing.")) == [("my dad", "m")]
    assert list(unnamed_people("My sister Priya lives in Bristol.")) == []  # named
    assert list(unnamed_people("Borrowed my brother's car.")) == []  # a possessor
    assert other_people("Called my mum.", [], unnamed=False) == []


def test_an_ex_or_step_role_keeps_the_roles_pronoun() -> None:
    assert (role_gender("ex-husband"), role_gender("step-mum"), role_gender("Ex-wife")) == ("m", "f", "f")
    assert is_person_role("ex-boss") and not is_person_role("ex-directory")
    assert list(named_by_role("Need a text to my ex-husband Wade about the weekends.")) == [("Wade", "Wade", "m")]


@pytest.mark.parametrize("text, unnamed", [
    ("Riaan, my boyfriend, is driving us to Kruger.", []),  # set off after his name: one person
    ("My landlord here in Pune is Mr Kulkarni, very old school.", []),  # said to be a titled name
    ("Yesterday, my dad called about the boiler.", [("my dad", "m")]),  # "Yesterday" names no one
    ("My dad is Scottish, so haggis it is.", [("my dad", "m")]),  # no name after "is"
    ("My mum is Carol's best friend.", [("my mum", "f")]),  # Carol is someone else
])
def test_a_role_said_beside_its_persons_name_is_no_second_person(text, unnamed) -> None:
    assert list(unnamed_people(text)) == unnamed


def test_names_that_start_with_a_capital_outside_a_to_z_are_names() -> None:
    assert list(unnamed_people("My sister Élodie did the same trip.")) == []  # named, not "my sister" alone
    assert list(named_by_role("My sister Élodie did the same trip.")) == [("Élodie", "Élodie", "f")]
    assert list(named_by_role("Dr Ólafsson saw my uncle Şener.")) == [
        ("Şener", "Şener", "m"), ("Ólafsson", "Dr Ólafsson", None)]


@pytest.mark.parametrize("text, scene", [
    ("Had my smear test at the surgery this morning", True),
    ("Got pulled over on the A38 last night", True),
    ("Finally got the haircut yesterday", True),
    ("Spent an hour on hold with the broadband company", True),
    ("Called the airline about the lost bag for the third time", True),
    ("Delivery came today and the box was soaked", True),
    ("Took the car in for its first service since I bought it", True),
    ("Dropped the van off first thing", True),
    ("Car failed its MOT on the front tyres", True),
    ("We went to the beach and had a picnic", False),
    ("My brother took the car to Leeds for the weekend", False),
    ("My sister tested the new oven", False),
])
def test_an_encounter_that_brings_a_person_of_its_own(text, scene) -> None:
    assert names_a_scene(text) is scene


def test_who_is_met_for_a_service() -> None:
    assert serves("My physio, Dana, gave me three exercises.", "Dana")
    assert serves("Dr Okafor wants me to wear a monitor.", "Dr Okafor")
    assert serves("Coach Delgado moved practice.", "Coach Delgado")
    assert not serves("My friend Hannah is coming to stay.", "Hannah")
    assert not serves("My neighbour Mr Okafor has a spare key.", "Mr Okafor")
    assert not serves("My coworker Bettina recommended a new dentist near the office.", "Bettina")  # not hers
    assert serves("Hana, my Japanese tutor, recommended NHK Easy News.", "Hana")


def test_words_for_someone_in_general() -> None:
    assert all(speaks_of_anyone(w) for w in ("patient", "Whoever", "runners", "GP", "lead"))
    assert not any(speaks_of_anyone(w) for w in ("ship", "results", "garden"))


def test_a_name_a_clause_of_who_follows_is_a_person() -> None:
    assert named_by_role("Booked a trip to Mexico City with Xochitl, who grew up there.") == (
        ("Xochitl", "Xochitl", None),)
    assert named_by_role("I'm on the desk alongside Precious, who's been doing it for years.") == (
        ("Precious", "Precious", None),)
    assert named_by_role("We went to Paris, which was lovely.") == ()


def test_a_role_where_they_are_from_then_the_name() -> None:
    assert named_by_role("The neighbour across the hall, Wojciech, has offered to water my plants.") == (
        ("Wojciech", "Wojciech", None),)
    assert named_by_role("Our landlord in Porto, Mr Silva, fixed it.") == (("Silva", "Mr Silva", "m"),)
    assert named_by_role("I went to the shop in town, Tesco, for milk.") == ()  # a shop is no person's role


def test_a_person_who_goes_by_they() -> None:
    assert pronouns_in("My brother's partner, Jules, uses they/them.", ["Jules"]) == {"Jules": "n"}
    assert pronouns_in("Our instructor, Alex Mbeki, is non-binary.", ["Alex Mbeki"]) == {"Alex Mbeki": "n"}
    assert pronouns_in("My flatmates Charlie and Rowan - both use they/them.", ["Charlie", "Rowan"]) == {}
    # the mark right after the name is that name's, whoever was named just before
    assert pronouns_in("Ella's new piano teacher is called Sky (they/them).", ["Ella", "Sky"]) == {"Sky": "n"}
    assert pronouns_in("My flatmates Charlie and Rowan (they/them) are lovely.", ["Charlie", "Rowan"]) == {}
    # "they" as the subject of the clause right after the name, nothing but a dash, a comma or "and" between
    assert pronouns_in("Booked a session with a new physio, Kit — they're brilliant with knees.", ["Kit"]) == {
        "Kit": "n"}
    assert pronouns_in("The new choir leader is Ashley, they seem strict.", ["Ashley"]) == {"Ashley": "n"}
    assert pronouns_in("Had drinks with Tom and Ana, they are moving to Bath.", ["Tom", "Ana"]) == {}
    assert pronouns_in("Visited Sarah at the office and they all sang.", ["Sarah"]) == {}
    # only when the name is its clause's subject or what it says someone is, not an object
    assert pronouns_in("Got some tulips for Nadia; they were only five pounds.", ["Nadia"]) == {}
    assert pronouns_in("Sent the photos to Priya and they came out really well.", ["Priya"]) == {}


def test_a_pet_or_a_boat_beside_a_person_and_a_name_written_about() -> None:
    assert names_a_pet_or_a_ship("Our new neighbour Bartek has a huge husky that howls.")
    assert names_a_pet_or_a_ship("Daniela helped me pick out a used boat, a little sailboat.")
    assert not names_a_pet_or_a_ship("Declan loves horse racing and crosswords.")
    assert only_as_topic("He remembered my essay on Dickens!", "Dickens")
    assert not only_as_topic("The studio is run by Leilani, who trained in Japan.", "Leilani")
    assert is_person_role("coaches") and is_person_role("nurses")


def test_an_animal_a_vehicle_a_plant_or_a_boat_someone_keeps() -> None:
    assert is_kept_thing("mare") and is_kept_thing("Van") and is_kept_thing("orchids") and is_kept_thing("yacht")
    assert not is_kept_thing("park") and not is_kept_thing("groomer") and not is_kept_thing("caring")


def test_a_name_given_as_a_name_or_after_a_role_called() -> None:
    assert named_by_role("Booked a cleaner finally! Her name's Dorota, every other Thursday.") == (
        ("Dorota", "Dorota", "f"),)
    assert ("Priyanka", "Priyanka", None) in named_by_role("Our babysitter is a uni student called Priyanka.")
    assert named_by_role("We stayed at a hotel called Marina Bay.") == ()  # a hotel is no person's role
    assert not speaks_of_anyone("everyone")  # "meals that work for everyone. her diabetes …" is hers


def test_an_encounter_with_a_stranger_is_told_apart_from_an_appointment():
    from fleet_memory.ingest.genders import names_a_scene, names_a_stranger_scene
    for text in ("Took the car to the garage and she rang", "popped into the bakery and she remembered my order",
                 "the job interview was weird, she kept asking", "the Uber driver said he"):
        assert names_a_scene(text) and names_a_stranger_scene(text), text
    assert names_a_scene("Had my check-up this morning") and not names_a_stranger_scene("Had my check-up this morning")
