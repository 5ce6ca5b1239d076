"""The rules of signing in with OpenID Connect: the sealed flow, the ID token's claims, who may
enter and as what."""

from __future__ import annotations

from typing import Any

import pytest

from arena_api.core.oidc import (
    FLOW_TTL_S,
    OidcRefused,
    check_email,
    check_id_token,
    claim_values,
    new_flow,
    open_flow,
    role_for,
    seal_flow,
)

KEY = b"k" * 32
NOW = 1_700_000_000.0


def _claims(**changes: Any) -> dict[str, Any]:
    claims = {
        "iss": "https://id.example.com",
        "aud": "arena",
        "sub": "user-1",
        "exp": NOW + 300,
        "iat": NOW - 5,
        "nonce": "n-1",
    }
    claims.update(changes)
    return {k: v for k, v in claims.items() if v is not None}


def _check(claims: dict[str, Any]) -> None:
    check_id_token(claims, issuer="https://id.example.com", client_id="arena", nonce="n-1", now=NOW)


def _refusal(claims: dict[str, Any]) -> str:
    with pytest.raises(OidcRefused) as refused:
        _check(claims)
    assert refused.value.code == "oidc_token_invalid" and refused.value.status == 401
    return refused.value.message


def test_a_sealed_flow_opens_with_its_own_state_before_it_expires() -> None:
    flow = new_flow("/insights", NOW)
    sealed = seal_flow(KEY, flow)

    assert open_flow(KEY, sealed, flow.state, NOW + FLOW_TTL_S - 1) == flow
    assert len(flow.verifier) >= 43 and flow.state != flow.nonce


@pytest.mark.parametrize(
    ("sealed", "state"),
    [
        (None, "s"),  # the flow cookie never reached us (another browser)
        ("garbage", "s"),
        ("e30.bad-signature", "s"),
    ],
)
def test_a_missing_or_forged_flow_is_a_state_mismatch(sealed: str | None, state: str) -> None:
    with pytest.raises(OidcRefused) as refused:
        open_flow(KEY, sealed, state, NOW)
    assert refused.value.code == "oidc_state_mismatch" and refused.value.status == 400


def test_another_state_another_key_or_a_changed_body_is_refused() -> None:
    flow = new_flow("/", NOW)
    sealed = seal_flow(KEY, flow)
    body, _, signature = sealed.partition(".")
    other = seal_flow(KEY, new_flow("/", NOW))

    for attempt in (
        (KEY, sealed, "another-state"),
        (b"x" * 32, sealed, flow.state),
        (KEY, other.partition(".")[0] + "." + signature, flow.state),
        (KEY, sealed, None),
    ):
        with pytest.raises(OidcRefused) as refused:
            open_flow(*attempt, NOW)
        assert refused.value.code == "oidc_state_mismatch"
    assert body  # the body is not empty


def test_a_flow_past_its_time_is_expired() -> None:
    flow = new_flow("/", NOW)
    with pytest.raises(OidcRefused) as refused:
        open_flow(KEY, seal_flow(KEY, flow), flow.state, NOW + FLOW_TTL_S)
    assert refused.value.code == "oidc_flow_expired"


def test_a_right_id_token_passes() -> None:
    _check(_claims())
    _check(_claims(aud=["arena", "other"], azp="arena"))
    _check(_claims(exp=NOW - 30))  # within the leeway of clocks apart


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"iss": "https://evil.example.com"}, "another issuer"),
        ({"aud": "someone-else"}, "another client"),
        ({"aud": ["someone-else", "other"]}, "another client"),
        ({"aud": ["arena", "other"]}, "authorised party"),  # several audiences need azp
        ({"azp": "other"}, "authorised party"),
        ({"exp": NOW - 61}, "expired"),
        ({"exp": None}, "expired"),
        ({"iat": NOW + 120}, "future"),
        ({"nonce": "replayed"}, "nonce"),
        ({"nonce": None}, "nonce"),
        ({"sub": ""}, "subject"),
    ],
)
def test_a_wrong_claim_is_refused_naming_it(changes: dict[str, Any], why: str) -> None:
    assert why in _refusal(_claims(**changes))


def test_claim_values_read_lists_strings_and_nested_objects() -> None:
    claims = {
        "groups": ["a", "b", 3],
        "roles": "admin, reviewer",
        "realm_access": {"roles": ["arena-admin"]},
        "odd": {"x": 1},
    }
    assert claim_values(claims, "groups") == ("a", "b")
    assert claim_values(claims, "roles") == ("admin", "reviewer")
    assert claim_values(claims, "realm_access.roles") == ("arena-admin",)
    assert claim_values(claims, "odd") == ()
    assert claim_values(claims, "missing.path") == ()


def test_the_role_is_the_most_powerful_the_values_give() -> None:
    def role(groups: list[str]) -> str:
        return role_for({"groups": groups}, "groups", ["admins"], ["reviewers"])

    assert role(["reviewers", "admins"]) == "admin"
    assert role(["staff", "reviewers"]) == "reviewer"
    assert role(["staff"]) == "voter"
    assert role([]) == "voter"


def test_allowed_domains_need_a_verified_email_in_one_of_them() -> None:
    domains = ("example.com",)
    verified = {"email": "ann@Example.COM", "email_verified": True}

    assert check_email(verified, domains) == "ann@Example.COM"
    assert check_email({"email": "x@any.test"}, ()) == "x@any.test"  # no rule: anyone
    assert check_email({}, ()) is None
    for claims, code in (
        ({"email": "ann@example.com"}, "oidc_email_unverified"),
        ({"email": "ann@example.com", "email_verified": False}, "oidc_email_unverified"),
        ({}, "oidc_email_unverified"),
        ({"email": "ann@example.com.evil.test", "email_verified": True}, "oidc_domain_refused"),
        ({"email": "ann@sub.example.com", "email_verified": True}, "oidc_domain_refused"),
    ):
        with pytest.raises(OidcRefused) as refused:
            check_email(claims, domains)
        assert refused.value.code == code and refused.value.status == 403
