"""The server's Ed25519 signing key: every chain record, ledger entry and checkpoint is signed with it, so
that a database administrator (who can rewrite rows and recompute SHA-256 hashes) cannot forge one. The
public key alone verifies them (`GET /api/integrity`, `tapete verify --public-key`).

The key is `--signing-key PATH` or ``TAPETE_SIGNING_KEY`` (a PEM PKCS#8 private key, shared by all of a
casino's servers), else ``signing.key`` in the data directory, written on the first start (mode 0600)."""

from __future__ import annotations

import base64
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from nacl.bindings import crypto_sign, crypto_sign_open
from nacl.exceptions import BadSignatureError

from tapete.log import canonical

ENV = "TAPETE_SIGNING_KEY"
FILE = "signing.key"


class SigningKeyError(ValueError):
    """A signing or public key that cannot be read (said to the operator)."""


@dataclass(frozen=True)
class Verifier:
    """A public key: what checks signatures, with no private key at hand. Signatures are checked with
    libsodium (PyNaCl), the library that makes them and the faster of the two at hand: the start-up, the
    running checkpoints and `tapete verify` check every record and entry (docs/performance.md)."""

    public: Ed25519PublicKey
    #: the 32 bytes of the public key, as libsodium takes it
    raw: bytes = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        raw = self.public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        object.__setattr__(self, "raw", raw)

    @property
    def pem(self) -> str:
        """The public key as PEM (SubjectPublicKeyInfo), what `tapete verify --public-key` reads."""
        return self.public.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        ).decode()

    @property
    def fingerprint(self) -> str:
        """SHA-256 of the raw public key, hex: what the first start prints and an auditor compares."""
        return hashlib.sha256(self.raw).hexdigest()

    def check(self, message: bytes, signature: str | None) -> bool:
        """Whether `signature` (base64) is this key's signature of `message`."""
        if not signature:
            return False
        try:
            sig = base64.b64decode(signature, validate=True)
        except ValueError:
            return False
        if len(sig) != 64:
            return False
        try:
            crypto_sign_open(sig + message, self.raw)
        except BadSignatureError:
            return False
        return True

    def to_json(self) -> dict[str, Any]:
        """`GET /api/integrity`'s answer."""
        return {
            "algorithm": "ed25519",
            "public_key": self.pem,
            "public_key_raw": base64.b64encode(self.raw).decode(),
            "fingerprint": self.fingerprint,
        }


@dataclass(frozen=True)
class Signer:
    """The private key and its public half. Signatures are made with libsodium (PyNaCl): the same
    Ed25519 signatures as OpenSSL's (the scheme is deterministic), made faster (docs/performance.md)."""

    private: Ed25519PrivateKey
    #: libsodium's form of the key: the 32-byte seed followed by the public key
    _sodium: bytes = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        raw = serialization.Encoding.Raw
        seed = self.private.private_bytes(raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())
        public = self.private.public_key().public_bytes(raw, serialization.PublicFormat.Raw)
        object.__setattr__(self, "_sodium", seed + public)

    @property
    def verifier(self) -> Verifier:
        """The public half."""
        return Verifier(self.private.public_key())

    def sign(self, message: bytes) -> str:
        """The signature of `message`, base64 (88 characters)."""
        return base64.b64encode(crypto_sign(message, self._sodium)[:64]).decode()


# -- what is signed -------------------------------------------------------------------------------------
def record_message(table_id: int, seq: int, digest: str) -> bytes:
    """A chain record's signed statement: its table, its place and its hash (which covers its content
    and, through `prev`, every record before it)."""
    return f"tapete/record/{table_id}/{seq}/{digest}".encode()


#: a ledger entry's fields the server writes itself (and signs). Its balance after it is signed only where
#: the server knows it when it signs (a wallet it locked and read: `entry_message`'s `balance_after`); the
#: house's, the cage's and a table's are read from their rows as moved (with the COMMIT), and are checked
#: by the link instead
ENTRY_FIELDS = (
    "txn",
    "account_id",
    "amount",
    "kind",
    "table_id",
    "round_no",
    "player",
    "spot",
    "seq",
    "actor",
)


def entry_message(
    entry: dict[str, Any], at: str, *, entries: int | None = None, balance_after: int | None = None
) -> bytes:
    """A ledger entry's signed statement: its fields as the server wrote them, `at` as `time_text`, how many
    `entries` its transaction has (so that one deleted from it is missed), and its `balance_after` when the
    server knew it (None: it did not). Without `entries`: the first form, which covered neither (entries
    signed before it was added; their prefix differs, so neither form's signature passes for the other)."""
    body = canonical({**{k: entry.get(k) for k in ENTRY_FIELDS}, "at": at})
    if entries is None:
        return b"tapete/entry/" + body
    # after the fields' JSON (which ends where its object closes): no second canonical form to build
    known = "-" if balance_after is None else str(int(balance_after))
    return b"tapete/entry/2/" + body + f"/{int(entries)}/{known}".encode()


def _balances(balance_after: int, wallet: bool) -> tuple[int | None, ...]:
    """The balances an entry's signature may cover: a wallet's (read by the server before it wrote the
    entry) or none; only a wallet's balance is ever under one (the house's, the cage's and a table's are
    computed in SQL), so another account's is not tried (which can only refuse, never accept, more)."""
    return (balance_after, None) if wallet else (None,)


def entry_signed(
    keys: Keyring,
    entry: dict[str, Any],
    at: str,
    signature: str | None,
    *,
    entries: int,
    balance_after: int,
    wallet: bool,
) -> bool:
    """Whether a trusted key signed this ledger entry as it stands, its transaction holding `entries`
    entries: its statement with its balance after it (a `wallet`'s), or without it (the server did not
    know it), or in the first form (no count, no balance: entries signed before they were added)."""
    for known in _balances(balance_after, wallet):
        if keys.check(entry_message(entry, at, entries=entries, balance_after=known), signature):
            return True
    return keys.check(entry_message(entry, at), signature)


def entry_signed_count(
    keys: Keyring,
    entry: dict[str, Any],
    at: str,
    signature: str | None,
    *,
    balance_after: int,
    wallet: bool,
    present: int,
) -> int | None:
    """How many entries the transaction held when this entry was signed, if more than the `present` ones
    (up to `MISSING_SEARCHED` more): an entry whose signature fails only because entries of its
    transaction are gone, not because it changed. None: not so."""
    for entries in range(present + 1, present + MISSING_SEARCHED + 1):
        for known in _balances(balance_after, wallet):
            if keys.check(entry_message(entry, at, entries=entries, balance_after=known), signature):
                return entries
    return None


#: how many missing entries of one transaction `entry_signed_count` looks for (a round's settlement is one
#: transaction of a few entries per bettor)
MISSING_SEARCHED = 64


def time_text(moment: Any) -> str:
    """A timestamp as an entry's signature covers it (UTC, microseconds): the same text from the
    datetime written and from the one either database gives back."""
    from datetime import UTC

    return str(moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"))


def checkpoint_message(kind: str, table_id: int | None, seq: int, digest: str) -> bytes:
    """A checkpoint's signed statement: the chain (or the ledger) checked whole up to `seq`."""
    return f"tapete/checkpoint/{kind}/{table_id}/{seq}/{digest}".encode()


def checkpoint_signed(
    keys: Keyring, kind: str, table_id: int | None, seq: int, digest: str, signature: str | None
) -> bool:
    """Whether a trusted key signed this checkpoint (one that is not counts for nothing)."""
    return keys.check(checkpoint_message(kind, table_id, seq, digest), signature)


# -- loading ---------------------------------------------------------------------------------------------
def private_from_pem(data: bytes, where: str) -> Signer:
    """A signer from a PEM private key (SigningKeyError when it is not an Ed25519 one)."""
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise SigningKeyError(f"{where}: not a PEM private key without a password ({exc})") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningKeyError(f"{where}: the signing key must be an Ed25519 key")
    return Signer(key)


def public_from_file(path: Path) -> Verifier:
    """A verifier from a file: a PEM public key, a PEM private key (its public half), or the base64 of
    the 32 raw bytes."""
    data = path.read_bytes()
    text = data.strip()
    try:
        if b"PRIVATE KEY" in text:
            return private_from_pem(text, str(path)).verifier
        if text.startswith(b"-----"):
            key = serialization.load_pem_public_key(text)
        else:
            key = Ed25519PublicKey.from_public_bytes(base64.b64decode(text, validate=True))
    except (ValueError, TypeError) as exc:
        raise SigningKeyError(f"{path}: not an Ed25519 public key ({exc})") from None
    if not isinstance(key, Ed25519PublicKey):
        raise SigningKeyError(f"{path}: not an Ed25519 public key")
    return Verifier(key)


def key_named(data_dir: Path, path: str | None = None) -> bool:
    """Whether a signing key is named (``--signing-key``, ``$TAPETE_SIGNING_KEY``) or kept in `data_dir`:
    else `load_signer` makes a new one."""
    return bool(path or os.environ.get(ENV, "").strip()) or (data_dir / FILE).exists()


def load_signer(data_dir: Path, path: str | None = None, say: Any = None) -> Signer:
    """The casino's signing key: `path` (``--signing-key``), else ``$TAPETE_SIGNING_KEY`` (each a path,
    or the PEM itself), else ``signing.key`` in `data_dir`, made on the first start (mode 0600) and its public
    key's fingerprint said with `say`."""
    given = path or os.environ.get(ENV, "").strip()
    if given:
        if given.startswith("-----BEGIN"):
            return private_from_pem(given.encode(), ENV)
        file = Path(given)
        if not file.exists():
            raise SigningKeyError(f"no signing key at {file}")
        return private_from_pem(file.read_bytes(), str(file))
    file = data_dir / FILE
    if file.exists():
        return private_from_pem(file.read_bytes(), str(file))
    data_dir.mkdir(parents=True, exist_ok=True)
    signer = Signer(Ed25519PrivateKey.generate())
    pem = signer.private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    try:
        fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process of this casino wrote it first: that one
        return private_from_pem(file.read_bytes(), str(file))
    with os.fdopen(fd, "wb") as fh:
        fh.write(pem)
    if say is not None:
        fingerprint = signer.verifier.fingerprint
        say(f"tapete serve: new signing key {file}, public key fingerprint SHA256:{fingerprint}")
    return signer


@dataclass(frozen=True)
class Keyring:
    """The public keys a check trusts: the current one first, then the casino's previous ones (kept
    after a rotation, so that the records they signed still verify)."""

    keys: tuple[Verifier, ...]

    def check(self, message: bytes, signature: str | None) -> bool:
        """Whether a trusted key signed `message`."""
        return any(k.check(message, signature) for k in self.keys)


PREVIOUS_ENV = "TAPETE_PREVIOUS_PUBLIC_KEYS"


def keyring(signer: Signer, data_dir: Path) -> Keyring:
    """The current key and the previous ones: the files named in ``$TAPETE_PREVIOUS_PUBLIC_KEYS``
    (separated by the system's path separator) and those in ``previous-keys/`` of the data directory."""
    files = [Path(p) for p in os.environ.get(PREVIOUS_ENV, "").split(os.pathsep) if p.strip()]
    folder = data_dir / "previous-keys"
    if folder.is_dir():
        files += sorted(f for f in folder.iterdir() if f.is_file())
    return Keyring((signer.verifier, *(public_from_file(f) for f in files)))


#: the key this process signs with (set once at start: `use`); the chain and the ledger sign with it
_current: Signer | None = None
_trusted: Keyring | None = None


def use(signer: Signer, trusted: Keyring | None = None) -> None:
    """Sign with `signer` from now on, and trust `trusted` (the process's casino sets them at start)."""
    global _current, _trusted
    _current, _trusted = signer, trusted or Keyring((signer.verifier,))


def trusted() -> Keyring:
    """The keys this process's checks trust."""
    return _trusted or Keyring((current().verifier,))


def current() -> Signer:
    """The key this process signs with (a process that never set one signs with a fresh key of its
    own: tests that build rows without a casino)."""
    global _current
    if _current is None:
        _current = Signer(Ed25519PrivateKey.generate())
    return _current
