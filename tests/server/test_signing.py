"""The signing key's check on its own: what it accepts and what it refuses (libsodium's check, against
OpenSSL's on the same signatures)."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from tapete.server.inspection.checks import newest_signed
from tapete.server.signing import Keyring, Signer, checkpoint_message

SIGNER = Signer(Ed25519PrivateKey.generate())
OTHER = Signer(Ed25519PrivateKey.generate())


def _openssl_accepts(message: bytes, signature: str) -> bool:
    try:
        SIGNER.private.public_key().verify(base64.b64decode(signature), message)
    except InvalidSignature:
        return False
    return True


@settings(max_examples=60, deadline=None)
@given(message=st.binary(max_size=400), flip=st.integers(min_value=0, max_value=64 * 8 - 1))
def test_a_signature_checks_only_for_its_message_and_key_and_as_openssl_checks_it(
    message: bytes, flip: int
) -> None:
    signature = SIGNER.sign(message)
    key = SIGNER.verifier
    assert key.check(message, signature) and _openssl_accepts(message, signature)
    assert not key.check(message + b"x", signature)
    assert not key.check(message, OTHER.sign(message))  # another key's
    raw = bytearray(base64.b64decode(signature))
    raw[flip // 8] ^= 1 << (flip % 8)
    forged = base64.b64encode(bytes(raw)).decode()
    assert key.check(message, forged) is _openssl_accepts(message, forged) is False


@pytest.mark.parametrize(
    "signature",
    [None, "", "not base64!", base64.b64encode(b"\0" * 63).decode(), base64.b64encode(b"\0" * 65).decode()],
)
def test_a_missing_or_malformed_signature_is_refused_not_raised(signature: str | None) -> None:
    assert SIGNER.verifier.check(b"record", signature) is False


def test_a_keyring_accepts_a_previous_keys_signature_and_no_other() -> None:
    ring = Keyring((SIGNER.verifier, OTHER.verifier))
    third = Signer(Ed25519PrivateKey.generate())
    assert ring.check(b"m", SIGNER.sign(b"m")) and ring.check(b"m", OTHER.sign(b"m"))
    assert not ring.check(b"m", third.sign(b"m"))


@dataclass(frozen=True)
class _Counting(Keyring):
    """A keyring that counts the signatures it checks."""

    checked: list[bytes] = field(default_factory=list)

    def check(self, message: bytes, signature: str | None) -> bool:
        self.checked.append(message)
        return super().check(message, signature)


def test_the_newest_signed_checkpoint_costs_one_check_however_many_there_are() -> None:
    """A table's start reads its checkpoints: with one every 1,000 records a long history has thousands,
    and each was checked when it was higher than the one found so far (every one, in seq order)."""
    rows: list[tuple[str, Any, str, str | None]] = [
        ("table", seq, f"h{seq}", SIGNER.sign(checkpoint_message("table", 3, seq, f"h{seq}")))
        for seq in range(999, 2_000_000, 1000)
    ]
    ring = _Counting((SIGNER.verifier,))
    assert newest_signed(rows, ring, "table", 3) == (1_999_999, "h1999999")
    assert len(ring.checked) == 1
    # a forged one above and an unsigned one are passed over; `below` leaves out what is above the head
    rows += [("table", 3_000_999, "forged", OTHER.sign(b"x")), ("table", 2_500_999, "planted", None)]
    assert newest_signed(rows, ring, "table", 3) == (1_999_999, "h1999999")
    assert newest_signed(rows, ring, "table", 3, below=1_999_999) == (1_998_999, "h1998999")
    assert newest_signed(rows, ring, "legacy", 3) is None
