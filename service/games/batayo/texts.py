"""BATAYO for people: the rules in short and what each option changes (en, fr, tr)."""

from __future__ import annotations

RULES = {
    "en": (
        "Each player has a suit and a shuffled pack of it, and holds a hand of 4 cards drawn "
        "from that pack. In a trick everyone picks a card from their hand face down; all are "
        "turned at once and the single highest card takes every card on the table (ace high). "
        "The winner puts them under their pack, and everyone refills their hand to 4.\n"
        "A tie for the highest card is a BATAYO between the tied players: each takes one card at "
        "random from the next tied player's hand and lays it face down, then picks a new card "
        "to play; the highest takes it all. The draws are made by the fair random source and "
        "can be checked.\n"
        "A player who plays a trick with an empty pack and loses it is out. The last player "
        "left wins. With a time limit, the player with most cards wins when time is up; a tie "
        "for most cards goes to sudden death, one card at a time."
    ),
    "fr": (
        "Chaque joueur a une couleur et un paquet mélangé de cette couleur, et tient une main "
        "de 4 cartes tirées de ce paquet. À chaque pli, chacun choisit une carte de sa main face "
        "cachée ; on les retourne ensemble et la plus forte, si elle est seule, prend toutes les "
        "cartes posées (l'as est la plus forte). Le gagnant les met sous son paquet, puis chacun "
        "complète sa main à 4.\n"
        "Une égalité pour la plus forte carte déclenche un BATAYO entre les ex aequo : chacun "
        "prend au hasard une carte dans la main du suivant et la pose face cachée, puis choisit "
        "une nouvelle carte ; la plus forte emporte tout. Les tirages viennent de la source de "
        "hasard équitable et sont vérifiables.\n"
        "Qui joue un pli avec un paquet vide et le perd est éliminé. Le dernier joueur en jeu "
        "gagne. Avec une limite de temps, le plus de cartes gagne à la fin du temps ; une "
        "égalité se joue en mort subite, carte par carte."
    ),
    "tr": (
        "Her oyuncunun bir rengi ve o renkten karılmış bir destesi vardır; desteden çekilen 4 "
        "kartlık bir el tutar. Her elde herkes elinden bir kartı kapalı seçer; kartlar birlikte "
        "açılır ve tek başına en yüksek kart masadakilerin hepsini alır (as en büyük). Kazanan "
        "onları destesinin altına koyar, herkes elini 4'e tamamlar.\n"
        "En yüksek kartta beraberlik, berabere kalanlar arasında bir BATAYO başlatır: her biri "
        "sıradakinin elinden rastgele bir kart alıp kapalı koyar, sonra oynayacağı yeni kartı "
        "seçer; en yüksek kart hepsini alır. Çekilişler adil rastgelelik kaynağından gelir ve "
        "doğrulanabilir.\n"
        "Destesi boşken bir eli oynayıp kaybeden oyundan çıkar. Oyunda kalan son oyuncu kazanır. "
        "Süre sınırı varsa süre bitince en çok kartı olan kazanır; en çok kartta beraberlik, "
        "kart kart ani ölümle çözülür."
    ),
}

OPTION_DOCS = {
    "players": {
        "en": "How many players (2 to 4); each gets one suit.",
        "fr": "Nombre de joueurs (2 à 4) ; chacun reçoit une couleur.",
        "tr": "Oyuncu sayısı (2 ile 4 arası); her birine bir renk düşer.",
    },
    "format": {
        "en": "express: 7 to ace, 8 cards each; classique: 5 to ace, 10 cards; longue: 2 to "
        "ace, 13 cards.",
        "fr": "express : du 7 à l'as, 8 cartes chacun ; classique : du 5 à l'as, 10 cartes ; "
        "longue : du 2 à l'as, 13 cartes.",
        "tr": "express: 7'den asa, kişi başı 8 kart; classique: 5'ten asa, 10 kart; longue: "
        "2'den asa, 13 kart.",
    },
    "time_limit_s": {
        "en": "A time limit for the whole game in seconds; when it runs out, most cards wins. "
        "Empty: play until one player is left.",
        "fr": "Durée maximale de la partie en secondes ; à la fin, le plus de cartes gagne. "
        "Vide : jouer jusqu'au dernier joueur.",
        "tr": "Oyunun toplam süresi (saniye); süre bitince en çok kartı olan kazanır. Boş: tek "
        "oyuncu kalana kadar oyna.",
    },
    "gather": {
        "en": "ordered: won cards go under the pack in a fixed order (the winner's first); "
        "random: in a random order.",
        "fr": "ordered : les cartes gagnées vont sous le paquet dans un ordre fixe (celles du "
        "gagnant d'abord) ; random : dans un ordre tiré au hasard.",
        "tr": "ordered: kazanılan kartlar destenin altına sabit sırayla girer (önce kazananınki); "
        "random: rastgele sırayla.",
    },
    "max_rounds": {
        "en": "A cap on tricks (a BATAYO chain counts once); then the player with most cards wins.",
        "fr": "Nombre maximal de plis (une suite de BATAYO compte pour un) ; ensuite le plus de "
        "cartes gagne.",
        "tr": "En fazla el sayısı (art arda BATAYO'lar bir sayılır); sonra en çok kartı olan "
        "kazanır.",
    },
}

TEXTS = {"rules": RULES, "options": OPTION_DOCS}
