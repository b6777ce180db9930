"""Rules help for each game in `GET /v1/rules`, a description per option, in
English, French and Turkish (the project's own words: core/texts.py, games/<g>/texts.py)."""

from __future__ import annotations

import pytest

from service.core.registry import GAMES
from service.core.texts import LANGS
from tests.support import toy

BUILTIN = ("bataille", "batak", "batayo", "roylet")


def test_every_builtin_game_has_its_rules_and_every_option_its_meaning_in_three_languages(svc):
    games = {g["id"]: g for g in svc.client.get("/v1/rules").json["games"]}
    for name in BUILTIN:
        game = games[name]
        assert set(game["rules"]) == set(LANGS), name
        texts = [game["rules"][lang] for lang in LANGS]
        assert all(len(t) > 200 for t in texts), name  # rules, not a title
        assert len(set(texts)) == 3, f"{name}: a language is a copy of another"
        for option in game["options"]:
            docs = option["docs"]
            assert set(docs) == set(LANGS), (name, option["name"])
            assert all(docs[lang].strip() for lang in LANGS), (name, option["name"])
            assert docs["fr"] != docs["en"] and docs["tr"] != docs["en"], (name, option["name"])
            assert "doc" not in option or option["doc"]  # the one-line `doc` is kept


def test_the_rules_text_names_what_each_game_is_about(svc):
    """A sanity check on content: each text speaks of its game's own ideas."""
    games = {g["id"]: g for g in svc.client.get("/v1/rules").json["games"]}
    assert "bataille" in games["bataille"]["rules"]["en"]
    assert "BATAYO" in games["batayo"]["rules"]["fr"]
    assert "koz" in games["batak"]["rules"]["tr"]
    assert "Roi" in games["roylet"]["rules"]["fr"]


@pytest.fixture
def toy_game():
    GAMES.register(toy.GAME)
    yield toy.GAME
    GAMES.unregister(toy.GAME.name)


def test_a_game_without_texts_is_listed_with_english_option_docs_only(svc, toy_game):
    """A fifth game needs no words to be listed: no `rules`, its options' `doc` as English."""
    game = next(g for g in svc.client.get("/v1/rules").json["games"] if g["id"] == "duel")
    assert "rules" not in game
    rounds = next(o for o in game["options"] if o["name"] == "rounds")
    assert rounds["docs"] == {"en": rounds["doc"]}
    common = next(o for o in game["options"] if o["name"] == "move_timeout_s")
    assert set(common["docs"]) == set(LANGS)  # the options every game has are described
