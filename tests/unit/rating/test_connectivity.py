"""Union-find components: labels, their order, and edge cases."""

from __future__ import annotations

import numpy as np
import pytest

from arena_rating import RatingInputError, connected_components
from arena_rating.connectivity import anchoring_contrast, component_sizes


def test_splits_a_disconnected_graph_into_its_components() -> None:
    labels = connected_components(6, [[0, 1], [1, 2], [4, 5]])

    np.testing.assert_array_equal(labels, [0, 0, 0, 2, 1, 1])


def test_the_largest_component_comes_first_and_ties_go_to_the_smallest_member() -> None:
    labels = connected_components(5, [[3, 4], [1, 2]])

    np.testing.assert_array_equal(labels, [2, 0, 0, 1, 1])


def test_labels_do_not_depend_on_edge_order_or_orientation() -> None:
    edges = np.array([[0, 1], [2, 3], [1, 4], [3, 5]])

    shuffled = connected_components(6, edges[::-1, ::-1])

    np.testing.assert_array_equal(shuffled, connected_components(6, edges))


def test_a_model_without_edges_is_a_component_of_its_own() -> None:
    labels = connected_components(3, np.empty((0, 2), dtype=np.intp))

    np.testing.assert_array_equal(component_sizes(labels), [1, 1, 1])


def test_no_models_means_no_components() -> None:
    assert connected_components(0, []).size == 0


def test_an_edge_to_an_unknown_model_is_rejected() -> None:
    with pytest.raises(RatingInputError):
        connected_components(2, [[0, 2]])


def test_the_anchoring_contrast_is_a_projection_that_kills_component_shifts() -> None:
    labels = np.array([0, 0, 1, 1, 1, 2])
    p = anchoring_contrast(labels)

    np.testing.assert_allclose(p @ p, p, atol=1e-12)
    np.testing.assert_allclose(p @ (labels == 1).astype(float), 0.0, atol=1e-12)
