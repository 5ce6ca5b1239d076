"""Agreement in expert review queues: Fleiss' κ against its published example, its interval,
and each reviewer's agreement with the others, the judge and the people."""

from __future__ import annotations

import pytest

from arena_api.core.review import ItemVerdicts, fleiss_kappa, queue_agreement

# Fleiss (1971) as Wikipedia works it: 10 items, 14 raters, 5 categories, κ = 0.210.
WIKIPEDIA = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def test_fleiss_kappa_is_the_published_value() -> None:
    assert fleiss_kappa(WIKIPEDIA) == pytest.approx(0.2099, abs=1e-4)


def test_fleiss_kappa_edges() -> None:
    assert fleiss_kappa([]) is None
    assert fleiss_kappa([[2, 0], [2, 0]]) is None  # one category only: chance agreement is 1
    assert fleiss_kappa([[2, 0], [0, 2]]) == pytest.approx(1.0)
    assert fleiss_kappa([[1, 1], [1, 1]]) == pytest.approx(-1.0)
    with pytest.raises(ValueError):
        fleiss_kappa([[2, 0], [1, 0]])


def test_a_queue_of_two_reviewers_who_mostly_agree() -> None:
    items = [
        ItemVerdicts("i1", 1, {"ann": "left", "bob": "left"}, judge="left", people="right"),
        ItemVerdicts("i2", 2, {"ann": "right", "bob": "right"}, judge="right", people="right"),
        ItemVerdicts("i3", 3, {"ann": "both_bad", "bob": "both_bad"}, judge=None, people=None),
        ItemVerdicts("i4", 4, {"ann": "left", "bob": "right"}, judge="left", people="skip"),
        ItemVerdicts("i5", 5, {"ann": "left"}),  # waiting for its second review
    ]

    result = queue_agreement(items, 2)

    assert result.items == 4
    # p = (3/8 left, 3/8 right, 0, 2/8 both bad): Pe = 0.34375; P = 3/4
    assert result.observed == pytest.approx(0.75)
    assert result.kappa == pytest.approx((0.75 - 0.34375) / (1 - 0.34375))
    assert result.kappa_low is not None and result.kappa_high is not None
    assert result.kappa_low <= result.kappa <= result.kappa_high
    assert queue_agreement(items, 2) == result  # the same verdicts, the same interval
    ann, bob = result.reviewers
    assert (ann.reviewer_id, ann.verdicts) == ("ann", 5)
    assert (ann.with_majority.agreed, ann.with_majority.of) == (3, 4)
    assert (ann.with_judge.agreed, ann.with_judge.of) == (3, 3)
    assert (bob.with_judge.agreed, bob.with_judge.of) == (2, 3)
    assert (ann.with_people.agreed, ann.with_people.of) == (1, 2)  # a skip is no vote
    assert [(s.position, s.agreement) for s in result.splits] == [(4, 0.0)]
    assert result.splits[0].votes == {"left": 1, "right": 1, "both_good": 0, "both_bad": 0}


def test_a_queue_with_one_review_an_item_has_no_kappa() -> None:
    result = queue_agreement([ItemVerdicts("i1", 1, {"ann": "left"})], 1)

    assert (result.items, result.kappa, result.kappa_low) == (0, None, None)
    assert result.reviewers[0].with_majority.of == 0
