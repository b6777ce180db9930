"""BatailleRoylet for people: the rules in short and what each option changes (en, fr, tr)."""

from __future__ import annotations

RULES = {
    "en": (
        "One player, the King (seat 0), against two Allies playing as a team. Each round the "
        "King holds the four jacks and the king of hearts (his royals) plus 7 cards; each Ally "
        "holds 10. A round is 10 battles.\n"
        "In a battle one Ally lays a card face down and the other lays one face up (whoever "
        "picks a face first takes it), then the King plays face up, and the hidden card is "
        "turned. Strength runs 2 up to J, Q, K, then 10, then ace; the 9 of hearts sits just "
        "above the jack for an Ally and just above the 10 for the King. The Allies take the "
        "battle only if one of their cards beats the King's (or both sides played an ace); "
        "otherwise the King takes it.\n"
        "The King must play all five royals in the round. A royal lost in a battle the Allies "
        "take is captured; capturing the king of hearts with a jack, or three jacks, is "
        "forbidden. After 10 battles the side with more tricks wins the round; a forbidden "
        "capture makes the round void and it is replayed. The Allies win the game when the "
        "King loses enough rounds in a row; the King wins by surviving the set number of "
        "rounds."
    ),
    "fr": (
        "Un joueur, le Roi (siège 0), contre deux Alliés qui jouent en équipe. À chaque manche "
        "le Roi tient les quatre valets et le roi de cœur (ses figures royales) plus 7 cartes ; "
        "chaque Allié en tient 10. Une manche compte 10 batailles.\n"
        "Dans une bataille, un Allié pose une carte face cachée et l'autre une face visible (le "
        "premier qui choisit une face la prend), puis le Roi joue face visible, et la carte "
        "cachée est retournée. L'ordre de force va du 2 au V, D, R, puis le 10, puis l'as ; le "
        "9 de cœur se place juste au-dessus du valet pour un Allié, juste au-dessus du 10 pour "
        "le Roi. Les Alliés prennent la bataille seulement si une de leurs cartes bat celle du "
        "Roi (ou si les deux camps ont joué un as) ; sinon le Roi la prend.\n"
        "Le Roi doit jouer ses cinq figures royales dans la manche. Une figure perdue dans une "
        "bataille gagnée par les Alliés est capturée ; capturer le roi de cœur avec un valet, "
        "ou trois valets, est interdit. Après 10 batailles, le camp qui a le plus de plis gagne "
        "la manche ; une capture interdite annule la manche, qui est rejouée. Les Alliés "
        "gagnent quand le Roi perd assez de manches d'affilée ; le Roi gagne s'il tient le "
        "nombre de manches prévu."
    ),
    "tr": (
        "Bir oyuncu, Kral (koltuk 0), takım olarak oynayan iki Müttefike karşı. Her turda "
        "Kral'ın elinde dört vale ve kupa papazı (kraliyet kartları) ile 7 kart daha, her "
        "Müttefikin elinde 10 kart olur. Bir tur 10 savaştır.\n"
        "Bir savaşta Müttefiklerden biri kartını kapalı, diğeri açık koyar (yüzü önce seçen "
        "alır), sonra Kral açık oynar ve kapalı kart açılır. Güç sırası 2'den vale, kız, papaz, "
        "sonra 10, sonra as; kupa 9'u Müttefikin elinde valenin hemen üstünde, Kral'ın elinde "
        "10'un hemen üstündedir. Müttefikler savaşı yalnızca kartlarından biri Kral'ınkini "
        "geçerse (ya da iki taraf da as oynadıysa) alır; yoksa savaşı Kral alır.\n"
        "Kral beş kraliyet kartının hepsini turda oynamak zorundadır. Müttefiklerin aldığı "
        "savaşta kaybedilen kraliyet kartı ele geçirilmiş olur; kupa papazını bir valeyle ya da "
        "üç valeyi ele geçirmek yasaktır. 10 savaştan sonra daha çok eli olan taraf turu "
        "kazanır; yasak ele geçirme turu geçersiz kılar ve tur yeniden oynanır. Kral art arda "
        "yeterince tur kaybedince Müttefikler kazanır; Kral belirlenen tur sayısı kadar "
        "dayanırsa kazanır."
    ),
}

OPTION_DOCS = {
    "rounds": {
        "en": "Counted rounds the King must survive to win.",
        "fr": "Nombre de manches comptées que le Roi doit tenir pour gagner.",
        "tr": "Kral'ın kazanmak için dayanması gereken sayılan tur sayısı.",
    },
    "losing_streak": {
        "en": "Rounds the King may lose in a row before the Allies win the game.",
        "fr": "Manches perdues d'affilée par le Roi qui donnent la partie aux Alliés.",
        "tr": "Kral'ın art arda kaybettiğinde oyunu Müttefiklere veren tur sayısı.",
    },
    "max_replays": {
        "en": "Void rounds allowed in a row; one more ends the game as a draw.",
        "fr": "Manches annulées permises d'affilée ; une de plus termine la partie sur un nul.",
        "tr": "Art arda izin verilen geçersiz tur sayısı; bir fazlası oyunu berabere bitirir.",
    },
}

TEXTS = {"rules": RULES, "options": OPTION_DOCS}
