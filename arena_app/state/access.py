"""Whether the arena is private (``ARENA_PASSPHRASE``, sign-in): the frame then offers to sign
out, and, to a signed-in user, the admin console (an admin) or their API tokens."""

from __future__ import annotations

import reflex as rx

from arena_app.backend import services


class AccessState(rx.State):
    private: bool = False
    #: The signed-in user's role now (``""``: none, or a passphrase session).
    role: str = ""
    #: Nobody is signed in on a page that lets them play anyway (``ARENA_OIDC_ANONYMOUS``).
    anonymous: bool = False

    @rx.event
    async def check(self) -> None:
        access, users = services().access, services().users
        self.private = access.enabled
        session = access.session_of(self.router.headers.cookie) if self.private else None
        grant = None if users is None else await users.session_grant(session)
        self.role = grant.role or "" if grant is not None else ""
        self.anonymous = self.private and session is None
