"""Words for people: a game's rules in short and each option's meaning, in every language the
viewer speaks. A game gives its own in `texts.py` (`TEXTS`); the options every game has are
described here. Written for this project, in its own words (the exact rules: docs/rules/)."""

from __future__ import annotations

from collections.abc import Mapping

LANGS = ("en", "fr", "tr")

Words = Mapping[str, str]  # language -> text

COMMON_OPTIONS: Mapping[str, Words] = {
    "move_timeout_s": {
        "en": "Seconds each player has to move; when the time is up, a bot plays for them. "
        "Empty: no clock.",
        "fr": "Secondes accordées à chaque joueur pour jouer ; passé ce délai, un robot joue "
        "à sa place. Vide : pas de pendule.",
        "tr": "Her oyuncunun hamle süresi (saniye); süre dolunca onun yerine bir bot oynar. "
        "Boş: süre sınırı yok.",
    },
    "abandon_after_s": {
        "en": "Seconds without any move after which the game ends with no winner, as "
        "abandoned. A week by default.",
        "fr": "Secondes sans aucun coup après lesquelles la partie s'arrête sans vainqueur, "
        "abandonnée. Une semaine par défaut.",
        "tr": "Hiç hamle yapılmadan geçen bu kadar saniyeden sonra oyun kazanansız, terk "
        "edilmiş olarak biter. Varsayılan: bir hafta.",
    },
    "bot_pace_ms": {
        "en": "Milliseconds each bot waits before it moves, so that you can follow the game. "
        "0: the bots play at once.",
        "fr": "Millisecondes que chaque robot attend avant de jouer, pour que vous puissiez "
        "suivre la partie. 0 : les robots jouent aussitôt.",
        "tr": "Her botun hamle yapmadan önce beklediği milisaniye; böylece oyunu takip "
        "edebilirsiniz. 0: botlar hemen oynar.",
    },
    "timeout_bot": {
        "en": "The bot that plays for a player whose time ran out.",
        "fr": "Le robot qui joue pour un joueur dont le temps est écoulé.",
        "tr": "Süresi dolan oyuncunun yerine oynayan bot.",
    },
}


def words(texts: Mapping[str, Words], key: str, fallback: str = "") -> dict[str, str] | None:
    """The text `key` in every language; None when the game wrote none and there is no
    fallback (then English only, from the option's `doc`)."""
    given = texts.get(key)
    if given:
        return {lang: given.get(lang) or given["en"] for lang in LANGS}
    if fallback:
        return {"en": fallback}
    return None
