"""The deployment's signing key (docs/fairness.md#where-a-log-comes-from): one Ed25519 key in one
file (`BATAYO_SIGNING_KEY`, by default `<BATAYO_DATA_DIR>/signing-key.pem`), made once by
`batayo keys init` under a file lock, read by every process. A rotation keeps each retired
public key, by id, in the side file `<key file>.retired.json`, so that the logs it signed still
verify.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ..core import signing

KEPT_SIGNATURES = 4096  # tips signed, kept in this process (a game in play's, per version)


@dataclass
class Keyring:
    """The key that signs now, and every public key that signed before (by key id)."""

    private: Ed25519PrivateKey
    retired: dict[str, Ed25519PublicKey] = field(default_factory=dict)
    _kept: OrderedDict = field(default_factory=OrderedDict, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @cached_property
    def kid(self) -> str:
        return signing.key_id(self.private.public_key())

    def publics(self) -> dict[str, Ed25519PublicKey]:
        """Every key id this server signed with, the current one last."""
        return {**self.retired, self.kid: self.private.public_key()}

    def sign(self, game_id: str, version: int, tip: str) -> dict:
        """The signature of this tip, made once and kept (every caller of a game in play asks
        for the same one until its next event)."""
        name = (game_id, version, tip)
        with self._lock:
            found = self._kept.get(name)
            if found is not None:
                self._kept.move_to_end(name)
                return found
        found = signing.sign(self.private, game_id, version, tip)
        with self._lock:
            self._kept[name] = found
            while len(self._kept) > KEPT_SIGNATURES:
                self._kept.popitem(last=False)
        return found


def retired_path(path: Path) -> Path:
    return path.with_name(path.name + ".retired.json")


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold `<key file>.lock` exclusively: one process makes or rotates the key at a time."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _write(path: Path, data: bytes) -> None:
    """Write `data` whole (a reader sees the old file or the new one), readable by its owner."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def _private_pem(key: Ed25519PrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def load(path: Path) -> Keyring | None:
    """The keyring in `path`, or None when there is no key file (the logs go unsigned)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    key = serialization.load_pem_private_key(data, password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise ValueError(f"{path} does not hold an Ed25519 private key")
    retired: dict[str, Ed25519PublicKey] = {}
    try:
        listed = json.loads(retired_path(path).read_text())
    except FileNotFoundError:
        listed = {}
    for text in listed.values():
        public = signing.public_key(text)
        retired[signing.key_id(public)] = public
    return Keyring(key, retired)


def init(path: Path) -> tuple[Keyring, bool]:
    """The keyring in `path`, made first if there is none; whether it was made now."""
    with _locked(path):
        found = load(path)
        if found is not None:
            return found, False
        _write(path, _private_pem(Ed25519PrivateKey.generate()))
        made = load(path)
        assert made is not None
        return made, True


def rotate(path: Path) -> tuple[Keyring, str | None]:
    """A new key in `path`; the public key it replaces kept in the side file. The new keyring
    and the id of the key retired (None if there was none)."""
    with _locked(path):
        old = load(path)
        if old is not None:
            side = retired_path(path)
            listed = json.loads(side.read_text()) if side.exists() else {}
            listed[old.kid] = base64.b64encode(signing.raw(old.private.public_key())).decode()
            _write(side, json.dumps(listed, indent=1, sort_keys=True).encode() + b"\n")
        _write(path, _private_pem(Ed25519PrivateKey.generate()))
        made = load(path)
        assert made is not None
        return made, old.kid if old is not None else None
