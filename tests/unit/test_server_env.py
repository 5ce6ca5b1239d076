"""``arena_app.server`` names Reflex's variables without importing Reflex: the names must be
Reflex's own."""

from __future__ import annotations

from reflex_base.environment import environment

from arena_app.server import REFLEX_SERVING_ENV


def test_the_serving_variables_are_the_ones_reflex_reads() -> None:
    assert set(REFLEX_SERVING_ENV) == {
        environment.REFLEX_ENV_MODE.name,
        environment.REFLEX_MOUNT_FRONTEND_COMPILED_APP.name,
        environment.REFLEX_SKIP_COMPILE.name,
    }
    assert environment.REFLEX_ENV_MODE.interpret(REFLEX_SERVING_ENV["REFLEX_ENV_MODE"]).value == (
        "prod"
    )
