"""The server's signature over a log's tip (docs/fairness.md#where-a-log-comes-from): Ed25519
over the canonical JSON of the game's id, a version, the hash of the event at that version and
the id of the key, so that a log carrying it is one this server issued. The events themselves
do not change: the signature travels beside them.

A verifier trusts only the public keys it was given (a file, or the server it asked); a key
named inside an export only says which one was used.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from . import bounds
from .chain import canonical
from .strict import is_int

CONTEXT = "batayo-tip-signature/1"
ALG = "Ed25519"
KID = bounds.matcher(bounds.KEY_ID)
HEX64 = bounds.matcher(bounds.HEX64)
SIGNED, UNSIGNED, FAILED = "signed", "unsigned", "failed"  # what `check` finds
VERDICTS = ("ok", "unsigned", "v1", "incomplete", "failed")


def raw(public: Ed25519PublicKey) -> bytes:
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_id(public: Ed25519PublicKey) -> str:
    """The first 16 lowercase hex digits of SHA-256 of the raw 32-byte public key."""
    return hashlib.sha256(raw(public)).hexdigest()[:16]


def pem(public: Ed25519PublicKey) -> str:
    return public.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode()


def describe(public: Ed25519PublicKey, current: bool) -> dict:
    """A public key as `GET /v1/keys/{kid}` serves it."""
    return {
        "kid": key_id(public),
        "alg": ALG,
        "public_key": base64.b64encode(raw(public)).decode(),
        "pem": pem(public),
        "current": current,
    }


def public_key(text: str | bytes) -> Ed25519PublicKey:
    """A public key from what a verifier is given: PEM, the raw key in base64, or the JSON of
    `GET /v1/keys/{kid}`. ValueError if it is none of these."""
    data = text.encode() if isinstance(text, str) else text
    stripped = data.strip()
    if stripped.startswith(b"{"):
        try:
            doc = json.loads(stripped)
        except ValueError:
            raise ValueError("not a key: JSON, but not a key's") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("public_key"), str):
            raise ValueError("not a key: JSON without `public_key`")
        stripped = doc["public_key"].encode()
    if stripped.startswith(b"-----BEGIN"):
        key = serialization.load_pem_public_key(stripped)
        if not isinstance(key, Ed25519PublicKey):
            raise ValueError("not an Ed25519 public key")
        return key
    try:
        decoded = base64.b64decode(stripped, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("not a key: neither PEM nor base64") from None
    if len(decoded) != 32:
        raise ValueError("not a key: an Ed25519 public key is 32 bytes")
    return Ed25519PublicKey.from_public_bytes(decoded)


def message(game_id: str, version: int, tip: str, kid: str) -> bytes:
    """The bytes signed: canonical JSON (the chain's: keys sorted, no spaces, UTF-8) of
    `{"context": CONTEXT, "game": id, "key": kid, "tip": hash, "version": version}`."""
    return canonical(
        {"context": CONTEXT, "game": game_id, "key": kid, "tip": tip, "version": version}
    )


def sign(private: Ed25519PrivateKey, game_id: str, version: int, tip: str) -> dict:
    """The signature document that travels beside a log of `version` events."""
    kid = key_id(private.public_key())
    sig = private.sign(message(game_id, version, tip, kid))
    return {
        "alg": ALG,
        "key": kid,
        "game": game_id,
        "version": version,
        "tip": tip,
        "signature": base64.b64encode(sig).decode(),
    }


def check(
    signature: Any, events: list, trusted: dict[str, Ed25519PublicKey]
) -> tuple[str, str | None]:
    """("signed", None) when `signature` is a trusted key's over these very events' tip;
    ("unsigned", why) when there is none, or no trusted key made it; ("failed", why) when it
    is not a signature of this log (another game, version or tip, or a forged one)."""
    first, last = events[0], events[-1]
    game_id = first.get("data", {}).get("id") if isinstance(first, dict) else None
    tip = last.get("hash") if isinstance(last, dict) else None
    return check_tip(signature, game_id, len(events), tip, trusted)


def check_tip(
    signature: Any, game_id: Any, version: int, tip: Any, trusted: dict[str, Ed25519PublicKey]
) -> tuple[str, str | None]:
    """`check` of a log known by its game id, its length and the hash of its last event."""
    if signature is None:
        return UNSIGNED, "the log carries no signature"
    fields = ("alg", "key", "game", "version", "tip", "signature")
    if not isinstance(signature, dict) or set(signature) != set(fields):
        return FAILED, "a malformed signature"
    if signature["alg"] != ALG:
        return FAILED, f"unknown signature algorithm {signature['alg']!r}"
    kid, signed_version, signed_tip = signature["key"], signature["version"], signature["tip"]
    if not isinstance(kid, str) or not KID(kid):
        return FAILED, "a malformed key id"
    if not is_int(signed_version) or not isinstance(signed_tip, str):
        return FAILED, "a malformed signature"
    if not isinstance(game_id, str) or signature["game"] != game_id:
        return FAILED, "the signature is for another game"
    if signed_version != version or not HEX64(signed_tip) or signed_tip != tip:
        return FAILED, "the signature is for another history of the game (its tip differs)"
    public = trusted.get(kid)
    if public is None:
        return UNSIGNED, f"signed with key {kid}, which is not among the keys trusted"
    try:
        sig = base64.b64decode(signature["signature"], validate=True)
        public.verify(sig, message(game_id, version, tip, kid))
    except (binascii.Error, ValueError, TypeError, InvalidSignature):
        return FAILED, f"the signature is not key {kid}'s over this tip"
    return SIGNED, None


def verdict(status: str, signed: str) -> str:
    """The one verdict of a log: its own checks (`verify`'s status) and its signature's."""
    if status == "failed" or signed == "failed":
        return "failed"
    if status in ("incomplete", "v1"):
        return status
    return "ok" if signed == "signed" else "unsigned"
