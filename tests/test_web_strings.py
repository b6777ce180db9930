"""The viewer's interface in English, French and Turkish. Every text the
pages ask for (`t("...")` in the scripts, `data-i18n*` in the pages) has its French and Turkish
words in strings.js; the browser tests check the same at run time (window.__i18nMissing)."""

from __future__ import annotations

import json
import re
from pathlib import Path

STATIC = Path(__file__).resolve().parent.parent / "service" / "web" / "static"


def strings() -> dict:
    text = (STATIC / "strings.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("{") : text.rindex("}") + 1])


def asked() -> set[str]:
    keys: set[str] = set()
    for script in STATIC.glob("*.js"):
        keys |= set(re.findall(r'\bt\("((?:[^"\\]|\\.)*)"', script.read_text(encoding="utf-8")))
    for page in STATIC.glob("*.html"):
        keys |= set(re.findall(r'data-i18n(?:-\w+)?="([^"]*)"', page.read_text(encoding="utf-8")))
    return keys


def test_every_text_the_pages_ask_for_is_translated():
    table = strings()
    keys = asked()
    assert len(keys) > 200  # the pages do go through t()
    for lang in ("fr", "tr"):
        missing = sorted(k for k in keys if k not in table[lang])
        assert missing == [], (lang, missing)


def test_translations_keep_their_placeholders():
    """A `{name}` left out or misspelt would print the wrong value (or none)."""
    table = strings()
    for lang in ("fr", "tr"):
        for key, text in table[lang].items():
            assert set(re.findall(r"\{\w+\}", key)) == set(re.findall(r"\{\w+\}", text)), (
                lang,
                key,
                text,
            )


def test_every_result_reason_of_every_game_has_words():
    """The result line says why a game ended in words, in each language."""
    from service.core.registry import GAMES

    table = strings()
    for game in GAMES.values():
        reason = game.result_shape["reason"]
        for value in reason.values:
            for lang in ("en", "fr", "tr"):
                assert f"reason:{value}" in table[lang], (game.name, value, lang)


def test_every_hint_reason_has_words():
    """A hint's reason code (service/core/advice.py) is worded in each language, its key naming
    the placeholders the viewer fills (game.js, HINT_PARAMS)."""
    from service.core.advice import HINT_CODES

    table = strings()
    for code in HINT_CODES:
        for lang in ("en", "fr", "tr"):
            assert any(k.split(" ")[0] == f"hint:{code}" for k in table[lang]), (code, lang)


def test_every_bot_level_of_every_game_has_words():
    """The create form offers each level `GET /v1/rules` lists per bot seat, by its name in the
    page's language (i18n.js `botName`)."""
    from service.core.registry import GAMES

    table = strings()
    for game in GAMES.values():
        for bot in game.bots:
            for lang in ("en", "fr", "tr"):
                assert f"bot:{bot}" in table[lang], (game.name, bot, lang)
