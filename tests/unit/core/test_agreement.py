"""The judge-against-people statistics (``core.agreement``): κ and its interval against SAS's
published answer and a hand computation, τ-b against a hand computation and SciPy."""

from __future__ import annotations

import math
import random

import pytest
from scipy.stats import kendalltau

from arena_api.core.agreement import (
    LABELS,
    cohens_kappa,
    kendall_tau_b,
    person_label,
    raw_agreement,
)
from arena_api.core.judging import outcome_vote
from arena_api.core.sides import VOTES

RTOL = 1e-12
#: SAS prints four decimals.
SAS_ATOL = 5e-5


def test_kappa_and_its_interval_match_sas_proc_freq() -> None:
    # SAS/STAT PROC FREQ's agreement example, as statsmodels' tests quote its printout: Kappa
    # 0.4842, ASE 0.1380, 95% limits 0.2137 and 0.7547.
    found = cohens_kappa([[0, 4, 1], [0, 8, 0], [0, 1, 5]])

    assert found is not None
    assert found.kappa == pytest.approx(0.4842, abs=SAS_ATOL)
    assert found.std_error == pytest.approx(0.1380, abs=SAS_ATOL)
    assert (found.lower, found.upper) == pytest.approx((0.2137, 0.7547), abs=SAS_ATOL)


def test_kappa_of_a_two_by_two_table_as_computed_by_hand() -> None:
    # n = 50; p = [[.4, .1], [.2, .3]]; rows .5 .5, columns .6 .4.
    # po = .7, pe = .5*.6 + .5*.4 = .5, kappa = (.7 - .5) / .5 = .4.
    # A = .4 (1 - 1.1 * .6)^2 + .3 (1 - .9 * .6)^2 = .04624 + .06348 = .10972
    # B = .6^2 (.1 (.6 + .5)^2 + .2 (.4 + .5)^2) = .36 * .283 = .10188
    # C = (.4 - .5 * .6)^2 = .01; SE = sqrt(A + B - C) / ((1 - pe) sqrt(n)).
    found = cohens_kappa([[20, 5], [10, 15]])
    std_error = math.sqrt(0.10972 + 0.10188 - 0.01) / (0.5 * math.sqrt(50))
    z = 1.959963984540054

    assert found is not None
    assert found.kappa == pytest.approx(0.4, rel=RTOL)
    assert found.std_error == pytest.approx(std_error, rel=1e-9)
    assert (found.lower, found.upper) == pytest.approx(
        (0.4 - z * std_error, 0.4 + z * std_error), rel=1e-9
    )
    assert raw_agreement([[20, 5], [10, 15]]) == pytest.approx(0.7, rel=RTOL)


def test_swapping_the_raters_changes_neither_kappa_nor_its_error() -> None:
    matrix = [[12, 3, 1, 0], [2, 9, 2, 1], [1, 1, 4, 2], [0, 2, 1, 5]]
    transposed = [list(column) for column in zip(*matrix, strict=True)]

    found, swapped = cohens_kappa(matrix), cohens_kappa(transposed)

    assert found is not None and swapped is not None
    assert (found.kappa, found.std_error) == pytest.approx((swapped.kappa, swapped.std_error))


def test_perfect_agreement_is_kappa_one_with_a_point_interval() -> None:
    found = cohens_kappa([[5, 0, 0, 0], [0, 3, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0]])

    assert found is not None
    assert (found.kappa, found.std_error, found.lower, found.upper) == pytest.approx((1, 0, 1, 1))


def test_the_interval_stays_within_the_range_kappa_can_take() -> None:
    found = cohens_kappa([[4, 0], [1, 4]])

    assert found is not None and found.kappa > 0.7
    assert found.upper == 1.0 and found.lower < found.kappa


@pytest.mark.parametrize(
    "matrix",
    [
        pytest.param([[0, 0], [0, 0]], id="no-rounds"),
        pytest.param([[7, 0], [0, 0]], id="one-label-throughout"),
    ],
)
def test_kappa_is_undefined_without_rounds_or_with_one_label_only(
    matrix: list[list[int]],
) -> None:
    assert cohens_kappa(matrix) is None


def test_agreement_of_no_rounds_is_undefined() -> None:
    assert raw_agreement([[0, 0], [0, 0]]) is None


@pytest.mark.parametrize(
    "matrix",
    [
        pytest.param([[1, 2], [3]], id="ragged"),
        pytest.param([[1, -1], [0, 2]], id="negative"),
    ],
)
def test_a_malformed_matrix_is_rejected(matrix: list[list[int]]) -> None:
    with pytest.raises(ValueError):
        cohens_kappa(matrix)


def test_a_confidence_level_outside_zero_and_one_is_rejected() -> None:
    with pytest.raises(ValueError):
        cohens_kappa([[1, 0], [0, 1]], confidence_level=95)


def test_each_vote_reads_as_the_verdict_that_would_have_recorded_it() -> None:
    labels = {vote: person_label(vote) for vote in VOTES}

    assert labels == {"left": "A", "right": "B", "both_good": "tie", "both_bad": "both_bad"} | {
        "skip": None
    }
    assert all(outcome_vote(label) == vote for vote, label in labels.items() if label)
    assert set(labels.values()) - {None} == set(LABELS)


def test_an_unknown_vote_has_no_label() -> None:
    with pytest.raises(ValueError):
        person_label("maybe")


def test_tau_b_of_three_models_as_computed_by_hand() -> None:
    # Pairs (1,2) and (1,3) agree, (2,3) disagree: (2 - 1) / 3.
    assert kendall_tau_b([(1, 1), (2, 3), (3, 2)]) == pytest.approx(1 / 3, rel=RTOL)


def test_tau_b_with_ties_as_computed_by_hand() -> None:
    # x: 1 1 2 3, y: 1 2 2 3. Pairs: (0,1) tied in x; (0,2) c; (0,3) c; (1,2) tied in y;
    # (1,3) c; (2,3) c. n0 = 6, n1 = n2 = 1: tau_b = 4 / sqrt(5 * 5) = 0.8.
    assert kendall_tau_b([(1, 1), (1, 2), (2, 2), (3, 3)]) == pytest.approx(0.8, rel=RTOL)


def test_tau_b_matches_scipy_on_ratings_with_ties() -> None:
    rng = random.Random(40)
    for _ in range(50):
        pairs = [(rng.randint(0, 6) * 25.0, rng.randint(0, 6) * 25.0) for _ in range(12)]
        expected = kendalltau([x for x, _ in pairs], [y for _, y in pairs], variant="b")
        found = kendall_tau_b(pairs)
        if math.isnan(expected.statistic):
            assert found is None
        else:
            assert found == pytest.approx(expected.statistic, rel=1e-12)


@pytest.mark.parametrize(
    ("pairs", "expected"),
    [
        pytest.param([(1200.0, 900.0), (1100.0, 800.0), (1000.0, 700.0)], 1.0, id="same-order"),
        pytest.param([(1200.0, 700.0), (1100.0, 800.0), (1000.0, 900.0)], -1.0, id="reversed"),
        pytest.param([(1000.0, 1000.0)], None, id="one-model"),
        pytest.param([(1000.0, 1.0), (1000.0, 2.0)], None, id="one-board-all-tied"),
    ],
)
def test_tau_b_at_its_bounds_and_where_it_is_undefined(
    pairs: list[tuple[float, float]], expected: float | None
) -> None:
    assert kendall_tau_b(pairs) == expected
