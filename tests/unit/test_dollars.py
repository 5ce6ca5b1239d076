"""The insights show money as people read it: cents, or four significant digits below a cent."""

from __future__ import annotations

import pytest

from arena_app.formatting import dollars


@pytest.mark.parametrize(
    ("amount", "shown"),
    [
        pytest.param(0, "$0.00", id="nothing"),
        pytest.param(6.894, "$6.89", id="dollars"),
        pytest.param(12345.678, "$12,345.68", id="thousands"),
        pytest.param(0.01, "$0.01", id="a-cent"),
        pytest.param(0.004404, "$0.004404", id="below-a-cent"),
        pytest.param(8.599e-05, "$0.00008599", id="never-scientific"),
    ],
)
def test_amounts_read_as_dollars(amount: float, shown: str) -> None:
    assert dollars(amount) == shown
