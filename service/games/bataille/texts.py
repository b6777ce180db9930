"""La Bataille for people: the rules in short and what each option changes (en, fr, tr)."""

from __future__ import annotations

RULES = {
    "en": (
        "Everyone gets an equal pack of cards, face down. Each round, every player turns the "
        "top card of their pack; the single highest card wins all the cards on the table, which "
        "go to its owner's won pile. Aces are high; suits do not count.\n"
        "When the highest card is shared, the tied players fight a bataille: each lays one card "
        "face down, then one face up, and the highest new face-up card takes everything. Another "
        "tie at the top repeats the bataille between those still tied.\n"
        "An empty pack is refilled from its owner's won pile. Whoever has no card left when one "
        "is needed is out; the last player holding cards wins."
    ),
    "fr": (
        "Chacun reçoit un paquet égal de cartes, faces cachées. À chaque tour, tous retournent "
        "la carte du dessus ; la plus forte carte, si elle est seule, remporte toutes les cartes "
        "posées, qui rejoignent le tas gagné de son joueur. L'as est la plus forte ; les couleurs "
        "ne comptent pas.\n"
        "Si plusieurs joueurs ont la plus forte carte, c'est la bataille entre eux seuls : chacun "
        "pose une carte face cachée puis une face visible, et la plus forte de ces nouvelles "
        "cartes emporte tout. Une nouvelle égalité au sommet relance la bataille.\n"
        "Un paquet vide est remplacé par le tas gagné. Qui n'a plus de carte quand il doit en "
        "poser une est éliminé ; le dernier joueur qui a des cartes gagne."
    ),
    "tr": (
        "Herkes eşit sayıda kapalı kart alır. Her elde oyuncular destelerinin üstündeki kartı "
        "açar; en yüksek kart tek başınaysa masadaki bütün kartları alır ve bunlar sahibinin "
        "kazanılan yığınına gider. As en büyüktür; renkler önemli değildir.\n"
        "En yüksek kart birden fazla oyuncudaysa yalnız onlar arasında savaş (bataille) olur: "
        "her biri bir kartı kapalı, bir kartı açık koyar; yeni açık kartların en yükseği hepsini "
        "alır. Yine beraberlik olursa savaş berabere kalanlar arasında tekrarlanır.\n"
        "Boşalan deste kazanılan yığınla yenilenir. Kart koyması gerektiğinde kartı kalmayan "
        "oyundan çıkar; kartı olan son oyuncu kazanır."
    ),
}

OPTION_DOCS = {
    "players": {
        "en": "How many players sit at the table (2 to 6).",
        "fr": "Nombre de joueurs à la table (2 à 6).",
        "tr": "Masadaki oyuncu sayısı (2 ile 6 arası).",
    },
    "deck": {
        "en": "32 cards (7 to ace) for a short game, or the full 52.",
        "fr": "32 cartes (du 7 à l'as) pour une partie courte, ou les 52.",
        "tr": "Kısa oyun için 32 kart (7'den asa) ya da 52 kartın tamamı.",
    },
    "variant": {
        "en": "classique: a bataille has one card face down, then one face up. sans_inconnue: "
        "no face-down card in a bataille. ouverte: you see your own pack and choose which "
        "card to play (and, in a bataille, which one goes face down).",
        "fr": "classique : une carte cachée puis une visible dans une bataille. sans_inconnue : "
        "pas de carte cachée dans une bataille. ouverte : vous voyez votre paquet et choisissez "
        "la carte jouée (et, dans une bataille, celle posée face cachée).",
        "tr": "classique: savaşta önce bir kapalı, sonra bir açık kart. sans_inconnue: savaşta "
        "kapalı kart yok. ouverte: kendi desteni görür, oynayacağın kartı (savaşta kapalı "
        "koyacağını da) seçersin.",
    },
    "gather": {
        "en": "random: a won pile is shuffled when it becomes your pack. ordered: it keeps the "
        "order the cards were won in (such a game can loop; a repeated position ends it as a "
        "draw).",
        "fr": "random : le tas gagné est mélangé quand il devient votre paquet. ordered : il "
        "garde l'ordre des gains (la partie peut tourner en rond ; une position répétée la "
        "termine sur un nul).",
        "tr": "random: kazanılan yığın desteye dönüşürken karılır. ordered: kartlar kazanıldığı "
        "sırayı korur (oyun döngüye girebilir; aynı durum tekrar ederse oyun berabere biter).",
    },
    "shortfall": {
        "en": "forfeit: a player who cannot lay every card a bataille asks for is out. "
        "play_out: they lay what they have and stay in while they hold a card.",
        "fr": "forfeit : qui ne peut poser toutes les cartes d'une bataille est éliminé. "
        "play_out : il pose ce qu'il a et reste tant qu'il lui reste une carte.",
        "tr": "forfeit: savaşın istediği kartları koyamayan oyundan çıkar. play_out: elindekini "
        "koyar ve kartı kaldıkça oyunda kalır.",
    },
    "max_rounds": {
        "en": "A cap on rounds (a bataille chain counts once); then the player with most "
        "cards wins.",
        "fr": "Nombre maximal de tours (une suite de batailles compte pour un) ; ensuite le "
        "joueur qui a le plus de cartes gagne.",
        "tr": "En fazla el sayısı (art arda savaşlar bir el sayılır); sonra en çok kartı olan "
        "kazanır.",
    },
}

TEXTS = {"rules": RULES, "options": OPTION_DOCS}
