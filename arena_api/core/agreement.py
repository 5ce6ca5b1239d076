r"""Whether the judge agrees with people: Cohen's κ over rounds both judged, Kendall's τ between
their boards. Pure.

A round counts when a person voted on it and the judge gave a verdict on it too (``arena judge
backfill`` asks the judge about rounds people voted on). Both are read in the judge's four
labels, slot A being the answer shown left:

==============  ================
person's vote   label
==============  ================
``left``        ``A``
``right``       ``B``
``both_good``   ``tie``
``both_bad``    ``both_bad``
``skip``        none: left out
==============  ================

A skip compares nothing (the judge has no such verdict), so a skipped round is counted apart and
left out of the agreement.

**Cohen's κ** (Cohen 1960) is the agreement beyond what two raters with the same label rates
would reach by chance, :math:`\kappa = (p_o - p_e) / (1 - p_e)`, with :math:`p_o` the share of
rounds on the diagonal and :math:`p_e = \sum_i p_{i\cdot} p_{\cdot i}`. Its 95 % interval is
analytic: :math:`\kappa \pm z_{0.975}\,\mathrm{SE}`, with the large-sample standard error of
Fleiss, Cohen and Everitt (1969, "Large sample standard errors of kappa and weighted kappa",
Psychological Bulletin 72(5)), the one SAS's PROC FREQ reports as ASE:

.. math::

    \mathrm{SE}^2 = \frac{A + B - C}{n (1 - p_e)^2},\quad
    A = \sum_i p_{ii}\,[1 - (p_{i\cdot} + p_{\cdot i})(1 - \kappa)]^2,\quad
    B = (1 - \kappa)^2 \sum_{i \ne j} p_{ij}\,(p_{\cdot i} + p_{j\cdot})^2,\quad
    C = [\kappa - p_e (1 - \kappa)]^2.

The interval is clipped to [-1, 1], the range κ can take. It is a normal approximation: with a
few dozen rounds it is wide, and at perfect agreement it shrinks to a point, so read it with
``n``. κ is undefined (``None``) when both raters used one and the same label throughout
(:math:`p_e = 1`).

**Kendall's τ-b** (Kendall 1945) compares two boards' orders over the models rated on both:
:math:`\tau_b = (n_c - n_d) / \sqrt{(n_0 - n_1)(n_0 - n_2)}`, with :math:`n_c` and :math:`n_d`
the concordant and discordant pairs, :math:`n_0 = n(n-1)/2` and :math:`n_1`, :math:`n_2` the
pairs tied on each board. It is ``None`` with fewer than two models, or when a board ties them
all.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from arena_api.core.judging import outcome_vote
from arena_api.core.verdicts import Choice

__all__ = [
    "CONFIDENCE_LEVEL",
    "LABELS",
    "AgreementCounts",
    "Kappa",
    "cohens_kappa",
    "kendall_tau_b",
    "person_label",
    "raw_agreement",
]

#: The four labels of the confusion matrix, in its order (rows: people; columns: the judge).
LABELS: tuple[Choice, ...] = ("A", "B", "tie", "both_bad")
#: The level of κ's interval.
CONFIDENCE_LEVEL = 0.95

# A person's vote in the judge's labels: the inverse of the vote a verdict records.
_PERSON_LABELS: Mapping[str, Choice] = {
    vote: label for label in LABELS if (vote := outcome_vote(label)) is not None
}


def person_label(vote: str) -> Choice | None:
    """A person's vote as the judge's label (``left`` → ``A``, ``both_good`` → ``tie``); None
    for a skip.

    Raises:
        ValueError: ``vote`` is not a vote label.
    """
    if vote == "skip":
        return None
    try:
        return _PERSON_LABELS[vote]
    except KeyError:
        raise ValueError(f"unknown vote {vote!r}") from None


@dataclass(frozen=True)
class AgreementCounts:
    """What the store counted for the agreement read.

    Attributes:
        matrix: ``matrix[i][j]``: rounds people labelled ``LABELS[i]`` and the judge
            ``LABELS[j]`` (4 x 4).
        skips: judged rounds whose person skipped (left out of ``matrix``).
        judges: the judges whose verdicts were counted, by name.
        boards: ``(people's rating, judge's rating)`` of each model rated on both boards.
    """

    matrix: tuple[tuple[int, ...], ...]
    skips: int = 0
    judges: tuple[str, ...] = ()
    boards: tuple[tuple[float, float], ...] = ()


@dataclass(frozen=True)
class Kappa:
    """Cohen's κ, its standard error and its interval at ``CONFIDENCE_LEVEL``."""

    kappa: float
    std_error: float
    lower: float
    upper: float


def _square(matrix: Sequence[Sequence[int]]) -> int:
    """The matrix's size, checked: square, of counts.

    Raises:
        ValueError: it is not square, or holds a negative count.
    """
    k = len(matrix)
    if any(len(row) != k for row in matrix):
        raise ValueError("the confusion matrix must be square")
    if any(cell < 0 for row in matrix for cell in row):
        raise ValueError("the confusion matrix holds counts, none negative")
    return k


def raw_agreement(matrix: Sequence[Sequence[int]]) -> float | None:
    """The share of rounds on the diagonal; None for an empty matrix.

    Raises:
        ValueError: the matrix is not square or holds a negative count.
    """
    k = _square(matrix)
    n = sum(map(sum, matrix))
    return sum(matrix[i][i] for i in range(k)) / n if n else None


def cohens_kappa(
    matrix: Sequence[Sequence[int]], confidence_level: float = CONFIDENCE_LEVEL
) -> Kappa | None:
    """Cohen's κ of a confusion matrix with its Fleiss–Cohen–Everitt interval; None for an
    empty matrix or when chance agreement is certain (both raters used one label only).

    Raises:
        ValueError: the matrix is not square or holds a negative count, or
            ``confidence_level`` is not between 0 and 1.
    """
    if not 0 < confidence_level < 1:
        raise ValueError("confidence_level must be between 0 and 1")
    k = _square(matrix)
    n = sum(map(sum, matrix))
    if n == 0:
        return None
    p = [[cell / n for cell in row] for row in matrix]
    rows = [sum(row) for row in p]
    cols = [sum(p[i][j] for i in range(k)) for j in range(k)]
    observed = sum(p[i][i] for i in range(k))
    chance = sum(rows[i] * cols[i] for i in range(k))
    if math.isclose(chance, 1.0):
        return None
    kappa = (observed - chance) / (1 - chance)
    a = sum(p[i][i] * (1 - (rows[i] + cols[i]) * (1 - kappa)) ** 2 for i in range(k))
    b = (1 - kappa) ** 2 * sum(
        p[i][j] * (cols[i] + rows[j]) ** 2 for i in range(k) for j in range(k) if i != j
    )
    c = (kappa - chance * (1 - kappa)) ** 2
    # A + B - C is a variance times n(1 - pe)^2: rounding can take a zero one just below zero.
    std_error = math.sqrt(max(a + b - c, 0.0)) / ((1 - chance) * math.sqrt(n))
    z = NormalDist().inv_cdf(0.5 + confidence_level / 2)
    return Kappa(
        kappa=kappa,
        std_error=std_error,
        lower=max(-1.0, kappa - z * std_error),
        upper=min(1.0, kappa + z * std_error),
    )


def kendall_tau_b(pairs: Sequence[tuple[float, float]]) -> float | None:
    """Kendall's τ-b between the first and the second value of each pair (a model's rating on
    two boards); None with fewer than two pairs or when either side is all ties.

    Quadratic in the pairs: a board holds tens of models, at most a few hundred.
    """
    n = len(pairs)
    concordant = discordant = ties_x = ties_y = 0
    for i in range(n):
        xi, yi = pairs[i]
        for j in range(i + 1, n):
            dx, dy = pairs[j][0] - xi, pairs[j][1] - yi
            if dx == 0:
                ties_x += 1
            if dy == 0:
                ties_y += 1
            if dx * dy > 0:
                concordant += 1
            elif dx * dy < 0:
                discordant += 1
    total = n * (n - 1) // 2
    denominator = math.sqrt((total - ties_x) * (total - ties_y))
    return (concordant - discordant) / denominator if denominator else None
