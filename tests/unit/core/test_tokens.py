from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import uuid
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena_api.core import tokens
from arena_api.core.errors import VoteError
from arena_api.core.tokens import (
    MatchupTokenService,
    TokenClaims,
    TokenExpired,
    TokenInvalid,
    generate_dev_secret,
    token_hash,
)

SECRET = b"s" * 32
OTHER_SECRET = b"o" * 32
START = 1_700_000_000.0
MATCHUP = uuid.UUID("00000000-0000-4000-8000-000000000001")
MODEL_A = uuid.UUID("00000000-0000-4000-8000-00000000000a")
MODEL_B = uuid.UUID("00000000-0000-4000-8000-00000000000b")


class FakeClock:
    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def signed(secret: bytes, claims: object) -> str:
    """A token in the documented format, for claims the service would never mint itself."""
    payload = b64(json.dumps(claims).encode())
    signature = b64(hmac.new(secret, payload.encode(), hashlib.sha256).digest())
    return f"{payload}.{signature}"


def valid_claims(**overrides: object) -> dict[str, object]:
    claims: dict[str, object] = {
        "m": str(MATCHUP),
        "a": "c2xvdC1h",
        "b": "c2xvdC1i",
        "s": "session",
        "iat": int(START),
        "exp": int(START) + 900,
        "n": "bm9uY2U",
    }
    claims.update(overrides)
    return claims


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def service(clock: FakeClock) -> MatchupTokenService:
    return MatchupTokenService(SECRET, clock=clock)


def test_module_exports_the_token_service_surface() -> None:
    assert set(tokens.__all__) == {
        "DEFAULT_TTL_SECONDS",
        "MIN_SECRET_BYTES",
        "MatchupTokenService",
        "TokenClaims",
        "TokenExpired",
        "TokenInvalid",
        "generate_dev_secret",
        "token_hash",
    }


def test_minted_token_verifies_to_its_claims(service: MatchupTokenService) -> None:
    token = service.mint(MATCHUP, MODEL_A, MODEL_B, "session-1")

    claims = service.verify(token)

    assert isinstance(claims, TokenClaims)
    assert (claims.matchup_id, claims.session_id) == (MATCHUP, "session-1")
    assert (claims.issued_at, claims.expires_at) == (int(START), int(START) + 900)
    assert service.slots_match(claims, MODEL_A, MODEL_B)
    assert not service.slots_match(claims, MODEL_B, MODEL_A)


def test_token_claims_name_no_model(service: MatchupTokenService) -> None:
    token = service.mint(MATCHUP, MODEL_A, MODEL_B, None)

    payload = base64.urlsafe_b64decode(token.split(".")[0] + "==").decode()

    for model in (MODEL_A, MODEL_B):
        assert str(model) not in payload and model.hex not in payload


def test_two_tokens_for_the_same_matchup_differ(service: MatchupTokenService) -> None:
    first = service.mint(MATCHUP, MODEL_A, MODEL_B, None)

    second = service.mint(MATCHUP, MODEL_A, MODEL_B, None)

    assert first != second and token_hash(first) != token_hash(second)


def test_token_without_session_verifies_with_none(service: MatchupTokenService) -> None:
    token = service.mint(MATCHUP, MODEL_A, MODEL_B, None)

    claims = service.verify(token)

    assert claims.session_id is None


def test_token_is_compact_json_payload_dot_hmac_of_payload(service: MatchupTokenService) -> None:
    """The wire format is the documented one, so another implementation could check it."""
    token = service.mint(MATCHUP, MODEL_A, MODEL_B, "s1")

    payload, signature = token.split(".")

    assert "=" not in token
    claims = json.loads(unb64(payload))
    assert claims.keys() == valid_claims().keys()
    assert (claims["m"], claims["s"], claims["iat"]) == (str(MATCHUP), "s1", int(START))
    assert b" " not in unb64(payload)
    assert unb64(signature) == hmac.new(SECRET, payload.encode(), hashlib.sha256).digest()


def test_token_with_tampered_payload_is_invalid(service: MatchupTokenService) -> None:
    token = service.mint(MATCHUP, MODEL_A, MODEL_B, "s1")
    _, signature = token.split(".")
    swapped = b64(json.dumps(valid_claims(a=str(MODEL_B), b=str(MODEL_A))).encode())

    with pytest.raises(TokenInvalid):
        service.verify(f"{swapped}.{signature}")


def test_token_with_tampered_signature_is_invalid(service: MatchupTokenService) -> None:
    token = service.mint(MATCHUP, MODEL_A, MODEL_B, "s1")
    payload, signature = token.split(".")
    flipped = ("A" if signature[0] != "A" else "B") + signature[1:]

    with pytest.raises(TokenInvalid):
        service.verify(f"{payload}.{flipped}")


def test_token_signed_with_another_secret_is_invalid(
    service: MatchupTokenService, clock: FakeClock
) -> None:
    token = MatchupTokenService(OTHER_SECRET, clock=clock).mint(MATCHUP, MODEL_A, MODEL_B, None)

    with pytest.raises(TokenInvalid):
        service.verify(token)


@pytest.mark.parametrize(
    "garbage",
    [
        pytest.param("", id="empty"),
        pytest.param(".", id="lone-dot"),
        pytest.param("abc", id="one-part"),
        pytest.param("not a token", id="spaces"),
        pytest.param("a.b.c", id="three-parts"),
        pytest.param("abc.", id="empty-signature"),
        pytest.param(".abc", id="empty-payload"),
        pytest.param("ab+c.de/f", id="standard-base64-alphabet"),
        pytest.param("===.===", id="padding-only"),
        pytest.param("ünï.cødé", id="non-ascii"),
        pytest.param("a" * 10_000 + "." + "b" * 43, id="oversized"),
    ],
)
def test_garbage_string_is_an_invalid_token(service: MatchupTokenService, garbage: str) -> None:
    with pytest.raises(TokenInvalid):
        service.verify(garbage)


@pytest.mark.parametrize(
    "mangle",
    [
        pytest.param(lambda token: token + ".extra", id="extra-part"),
        pytest.param(lambda token: token.replace(".", ""), id="no-separator"),
        pytest.param(lambda token: token + "\n", id="trailing-newline"),
        pytest.param(lambda token: token.replace(".", ".."), id="double-separator"),
    ],
)
def test_token_with_wrong_number_of_parts_or_stray_characters_is_invalid(
    service: MatchupTokenService, mangle: Callable[[str], str]
) -> None:
    token = service.mint(MATCHUP, MODEL_A, MODEL_B, "s1")

    with pytest.raises(TokenInvalid):
        service.verify(mangle(token))


@pytest.mark.parametrize(
    "claims",
    [
        pytest.param(["not", "an", "object"], id="json-array"),
        pytest.param({k: v for k, v in valid_claims().items() if k != "s"}, id="missing-key"),
        pytest.param(valid_claims(extra=1), id="extra-key"),
        pytest.param(valid_claims(m="not-a-uuid"), id="bad-uuid"),
        pytest.param(valid_claims(a=12), id="uuid-not-string"),
        pytest.param(valid_claims(s=7), id="session-not-string"),
        pytest.param(valid_claims(exp=True), id="boolean-expiry"),
        pytest.param(valid_claims(iat="now"), id="string-issued-at"),
    ],
)
def test_authentic_token_with_unreadable_claims_is_invalid(
    service: MatchupTokenService, claims: object
) -> None:
    token = signed(SECRET, claims)

    with pytest.raises(TokenInvalid):
        service.verify(token)


def test_authentic_token_whose_payload_is_not_json_is_invalid(
    service: MatchupTokenService,
) -> None:
    payload = b64(b"\xff\xfe not json")
    signature = b64(hmac.new(SECRET, payload.encode(), hashlib.sha256).digest())

    with pytest.raises(TokenInvalid):
        service.verify(f"{payload}.{signature}")


def test_token_is_still_valid_899_seconds_after_minting(
    service: MatchupTokenService, clock: FakeClock
) -> None:
    token = service.mint(MATCHUP, MODEL_A, MODEL_B, None)
    clock.now = START + 899

    claims = service.verify(token)

    assert claims.matchup_id == MATCHUP


@pytest.mark.parametrize("elapsed", [900, 900.5, 86_400], ids=["at-ttl", "after-ttl", "a-day"])
def test_token_expires_900_seconds_after_minting(
    service: MatchupTokenService, clock: FakeClock, elapsed: float
) -> None:
    token = service.mint(MATCHUP, MODEL_A, MODEL_B, None)
    clock.now = START + elapsed

    with pytest.raises(TokenExpired) as caught:
        service.verify(token)

    assert (caught.value.status, caught.value.code) == (401, "token_expired")


def test_expired_token_with_bad_signature_is_reported_invalid(
    service: MatchupTokenService, clock: FakeClock
) -> None:
    """The signature is checked first, so a forger learns nothing about expiry."""
    token = MatchupTokenService(OTHER_SECRET, clock=clock).mint(MATCHUP, MODEL_A, MODEL_B, None)
    clock.now = START + 10_000

    with pytest.raises(TokenInvalid):
        service.verify(token)


def test_custom_ttl_sets_the_expiry(clock: FakeClock) -> None:
    service = MatchupTokenService(SECRET, ttl_seconds=60, clock=clock)

    claims = service.verify(service.mint(MATCHUP, MODEL_A, MODEL_B, None))

    assert claims.expires_at - claims.issued_at == 60


def test_token_errors_are_401_vote_errors_that_do_not_echo_the_token(
    service: MatchupTokenService,
) -> None:
    token = service.mint(MATCHUP, MODEL_A, MODEL_B, "s1")
    payload, _ = token.split(".")

    with pytest.raises(TokenInvalid) as caught:
        service.verify(f"{payload}.AAAA")

    assert isinstance(caught.value, VoteError)
    assert (caught.value.status, caught.value.code) == (401, "invalid_token")
    assert payload not in str(caught.value)
    assert issubclass(TokenExpired, VoteError)


def test_token_hash_is_64_lowercase_hex_chars_of_sha256(service: MatchupTokenService) -> None:
    token = service.mint(MATCHUP, MODEL_A, MODEL_B, None)

    digest = token_hash(token)

    assert re.fullmatch(r"[0-9a-f]{64}", digest)
    assert digest == hashlib.sha256(token.encode()).hexdigest()


def test_token_hash_differs_per_token(service: MatchupTokenService) -> None:
    first = service.mint(MATCHUP, MODEL_A, MODEL_B, None)
    second = service.mint(uuid.uuid4(), MODEL_A, MODEL_B, None)

    hashes = {token_hash(first), token_hash(second)}

    assert len(hashes) == 2


@pytest.mark.parametrize("secret", [b"", b"x" * 15], ids=["empty", "fifteen-bytes"])
def test_short_secret_is_rejected(secret: bytes) -> None:
    with pytest.raises(ValueError, match="16 bytes"):
        MatchupTokenService(secret)


@pytest.mark.parametrize("ttl", [0, -1], ids=["zero", "negative"])
def test_non_positive_ttl_is_rejected(ttl: int) -> None:
    with pytest.raises(ValueError, match="ttl_seconds"):
        MatchupTokenService(SECRET, ttl_seconds=ttl)


def test_service_repr_hides_the_secret() -> None:
    service = MatchupTokenService(b"top-secret-value-123")

    text = repr(service)

    assert "top-secret" not in text
    assert "900" in text


def test_dev_secret_is_32_random_bytes_accepted_by_the_service() -> None:
    first, second = generate_dev_secret(), generate_dev_secret()

    service = MatchupTokenService(first)

    assert len(first) == 32
    assert first != second
    assert service.ttl_seconds == 900


@given(
    matchup_id=st.uuids(),
    slot_a=st.uuids(),
    slot_b=st.uuids(),
    session_id=st.none() | st.text(max_size=200),
)
def test_any_minted_token_round_trips(
    matchup_id: uuid.UUID, slot_a: uuid.UUID, slot_b: uuid.UUID, session_id: str | None
) -> None:
    service = MatchupTokenService(SECRET, clock=FakeClock())

    claims = service.verify(service.mint(matchup_id, slot_a, slot_b, session_id))

    assert claims.matchup_id == matchup_id
    assert service.slots_match(claims, slot_a, slot_b)
    assert claims.session_id == session_id


@given(garbage=st.text(max_size=300))
def test_no_random_string_verifies(garbage: str) -> None:
    service = MatchupTokenService(SECRET, clock=FakeClock())

    with pytest.raises(TokenInvalid):
        service.verify(garbage)
