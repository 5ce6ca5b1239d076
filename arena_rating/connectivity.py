r"""Connected components of the comparison graph, and centring within them.

Bradley-Terry strengths are identified only up to one additive constant per connected component
of the graph whose edges are the compared pairs, so ratings from different components sit on
unrelated scales. ``connected_components`` labels the components with a union-find; the labels
are ordered by size (largest first), ties by their smallest model index, so component 0 is the
main leaderboard and the labels do not depend on edge order. ``centre_within_components`` removes
each component's mean, and ``anchoring_contrast`` is the same map as a matrix

.. math::

    P = I - \sum_C \frac{1}{|C|} \mathbf{1}_C \mathbf{1}_C^\top,

through which the covariance of the strengths is projected (``arena_rating.confidence``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from arena_rating._errors import RatingInputError

__all__ = [
    "anchoring_contrast",
    "centre_within_components",
    "component_sizes",
    "connected_components",
]


def connected_components(n_models: int, edges: ArrayLike) -> NDArray[np.intp]:
    """Label each model with its connected component.

    Parameters
    ----------
    n_models : int
        Number of models (graph vertices).
    edges : array_like of int, shape (n_edges, 2)
        Compared pairs; duplicates and either orientation are fine.

    Returns
    -------
    NDArray[np.intp], shape (n_models,)
        Component ids ``0 .. k-1``: largest component first, ties broken by smallest member. An
        isolated model (no edge) is a component of its own.

    Raises
    ------
    RatingInputError
        ``edges`` is not of shape ``(n_edges, 2)`` or names a model outside ``range(n_models)``.
    """
    pairs = (
        np.asarray(edges, dtype=np.intp).reshape(-1, 2)
        if np.size(edges)
        else np.empty((0, 2), np.intp)
    )
    if pairs.size and (pairs.min() < 0 or pairs.max() >= n_models):
        raise RatingInputError(f"edge endpoints must lie in [0, {n_models})")
    if pairs.size:  # one union per distinct pair: a million raw votes are a few thousand edges
        canonical = np.minimum(pairs[:, 0], pairs[:, 1]) * n_models + np.maximum(
            pairs[:, 0], pairs[:, 1]
        )
        distinct = np.unique(canonical)
        pairs = np.column_stack([distinct // n_models, distinct % n_models])
    parent = list(range(n_models))
    size = [1] * n_models

    def find(x: int) -> int:
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:  # path compression
            parent[x], x = root, parent[x]
        return root

    for a, b in pairs.tolist():
        ra, rb = find(a), find(b)
        if ra == rb:
            continue
        if size[ra] < size[rb]:  # union by size keeps the trees shallow
            ra, rb = rb, ra
        parent[rb] = ra
        size[ra] += size[rb]
    roots = np.array([find(x) for x in range(n_models)], dtype=np.intp)
    unique_roots, first_member, counts = np.unique(roots, return_index=True, return_counts=True)
    order = np.lexsort((first_member, -counts))  # size descending, then smallest member
    label_of_root = np.empty(unique_roots.size, dtype=np.intp)
    label_of_root[order] = np.arange(unique_roots.size)
    return label_of_root[np.searchsorted(unique_roots, roots)]


def component_sizes(labels: ArrayLike) -> NDArray[np.intp]:
    """Number of models in each component, indexed by component id."""
    return np.bincount(np.asarray(labels, dtype=np.intp)).astype(np.intp)


def centre_within_components(values: ArrayLike, labels: ArrayLike) -> NDArray[np.float64]:
    r"""Subtract each component's mean: :math:`x_i - \frac{1}{|C(i)|}\sum_{j \in C(i)} x_j`.

    Raises
    ------
    RatingInputError
        ``values`` and ``labels`` differ in length.
    """
    x = np.asarray(values, dtype=np.float64)
    lab = np.asarray(labels, dtype=np.intp)
    if x.shape != lab.shape:
        raise RatingInputError(f"values {x.shape} and labels {lab.shape} differ in shape")
    if x.size == 0:
        return x.copy()
    sums = np.bincount(lab, x)
    means = sums / np.bincount(lab)
    return x - means[lab]


def anchoring_contrast(labels: ArrayLike) -> NDArray[np.float64]:
    """The centring map :math:`P` of the module docstring, shape ``(n_models, n_models)``."""
    lab = np.asarray(labels, dtype=np.intp)
    same = (lab[:, None] == lab[None, :]).astype(np.float64)
    contrast: NDArray[np.float64] = np.eye(lab.size) - same / np.bincount(lab)[lab][:, None]
    return contrast
