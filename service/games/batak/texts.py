"""Batak for people: the rules in short and what each option changes (en, fr, tr)."""

from __future__ import annotations

RULES = {
    "en": (
        "Four players, 13 cards each, ace high; play goes from each seat to the next.\n"
        "First the auction: starting next to the dealer, each player bids a number of tricks "
        "higher than the last bid, or passes for good. The highest bidder is the declarer: they "
        "name the trump suit and lead the first trick.\n"
        "You must follow the suit led, and beat the best card of that suit if you can. With "
        "none of that suit, you must trump (and over-trump if you can); otherwise play any "
        "card. Trumps may not be led until one has been played on another suit. The highest "
        "trump takes the trick, else the highest card of the suit led.\n"
        "Scoring: a declarer who takes at least the bid scores the tricks taken; one who falls "
        "short loses the bid (the contract fails). Everyone else scores one point a trick. In "
        "the team mode, partners (seats 0 and 2, 1 and 3) pool their tricks. After the last "
        "deal the highest total wins; a tie at the top plays tie-break deals until it breaks."
    ),
    "fr": (
        "Quatre joueurs, 13 cartes chacun, l'as est la plus forte ; on joue d'un siège au "
        "suivant.\n"
        "D'abord les enchères : à partir du voisin du donneur, chacun annonce un nombre de plis "
        "supérieur à la dernière annonce, ou passe pour de bon. Le plus offrant devient le "
        "déclarant : il choisit l'atout et entame le premier pli.\n"
        "Il faut fournir la couleur demandée, et monter sur sa plus forte carte si on le peut. "
        "Sans cette couleur, il faut couper (et surcouper si possible) ; sinon on joue "
        "n'importe quelle carte. On n'entame pas atout tant qu'aucun atout n'a coupé. Le plus "
        "fort atout prend le pli, sinon la plus forte carte de la couleur demandée.\n"
        "Score : le déclarant qui fait au moins son contrat marque ses plis ; s'il chute, il "
        "perd la valeur de son annonce. Les autres marquent un point par pli. En équipe, les "
        "partenaires (sièges 0 et 2, 1 et 3) mettent leurs plis en commun. Après la dernière "
        "donne, le plus haut total gagne ; une égalité en tête fait jouer des donnes de "
        "départage."
    ),
    "tr": (
        "Dört oyuncu, kişi başı 13 kart, as en büyük; oyun her koltuktan bir sonrakine geçer.\n"
        "Önce ihale: dağıtanın yanındakinden başlayarak herkes son tekliften yüksek bir el "
        "sayısı söyler ya da kesin olarak pas der. En yüksek teklifi veren ihaleyi alır: kozu "
        "seçer ve ilk eli açar.\n"
        "Açılan rengi takip etmek, elinden geliyorsa o rengin en büyüğünü geçmek zorunludur. O "
        "renk yoksa koz çakılır (mümkünse daha büyük kozla); o da yoksa herhangi bir kart "
        "atılır. Koz başka renge çakılmadan koz açılamaz. Eli en büyük koz, koz yoksa açılan "
        "rengin en büyüğü alır.\n"
        "Puan: ihaleyi alan teklifi kadar el yaparsa aldığı el sayısını yazar; yapamazsa batar "
        "ve teklifi kadar puan kaybeder. Diğerleri her el için bir puan alır. Eşli oyunda "
        "ortaklar (0 ile 2, 1 ile 3) ellerini birleştirir. Son dağıtımdan sonra en yüksek toplam "
        "kazanır; zirvede beraberlik olursa eşitlik bozulana kadar ek dağıtım oynanır."
    ),
}

OPTION_DOCS = {
    "mode": {
        "en": "ihaleli: an auction, each player for themselves. esli: teams, seats 0 and 2 "
        "against 1 and 3 (bids start at 7).",
        "fr": "ihaleli : enchères, chacun pour soi. esli : en équipes, sièges 0 et 2 contre 1 "
        "et 3 (enchères dès 7).",
        "tr": "ihaleli: ihale var, herkes kendi için. esli: takımlar, 0 ve 2, 1 ve 3'e karşı "
        "(teklifler 7'den başlar).",
    },
    "deals": {
        "en": "How many deals make a game (more are played while the top score is tied).",
        "fr": "Nombre de donnes d'une partie (on en joue d'autres tant que la tête est à égalité).",
        "tr": "Bir oyundaki dağıtım sayısı (en yüksek puan eşitken ek dağıtım oynanır).",
    },
    "first_dealer": {
        "en": "The seat that deals first.",
        "fr": "Le siège qui donne en premier.",
        "tr": "İlk dağıtan koltuk.",
    },
    "must_overtake_when_trumped": {
        "en": "On: following suit, you must still beat the best card of that suit even after "
        "someone trumped. Off: once trumped, any card of the suit will do.",
        "fr": "Activé : en fournissant, il faut monter sur la plus forte carte de la couleur "
        "même après une coupe. Désactivé : après une coupe, n'importe quelle carte de la "
        "couleur suffit.",
        "tr": "Açık: koz çakıldıktan sonra bile rengi takip ederken o rengin en büyüğünü "
        "geçmek gerekir. Kapalı: koz çakıldıysa o renkten herhangi bir kart yeter.",
    },
    "max_rounds": {
        "en": "A cap on deals (tie-breaks included); then the highest score wins.",
        "fr": "Nombre maximal de donnes (départages compris) ; ensuite le plus haut score gagne.",
        "tr": "En fazla dağıtım sayısı (ek dağıtımlar dahil); sonra en yüksek puan kazanır.",
    },
}

TEXTS = {"rules": RULES, "options": OPTION_DOCS}
