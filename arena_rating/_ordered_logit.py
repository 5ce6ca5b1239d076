r"""The three-outcome likelihood shared by the default and the style-controlled fit.

For a comparison whose strength difference is :math:`d` (first minus second) and a tie
threshold :math:`\eta > 0`, the Rao-Kupper (symmetric ordered-logit) model gives

.. math::

    P(\text{first wins}) = \sigma(d - \eta), \qquad
    P(\text{second wins}) = \sigma(-d - \eta), \qquad
    P(\text{tie}) = \sigma(d + \eta) - \sigma(d - \eta).

With :math:`w, l, t` the counts of each outcome on a row, the row's log-likelihood is

.. math::

    \ell = w \log\sigma(d - \eta) + l \log\sigma(-d - \eta)
         + t \big[\log\sigma(d + \eta) + \log\sigma(\eta - d) + \log(1 - e^{-2\eta})\big],

where the tie term uses :math:`\sigma(a) - \sigma(b) = \sigma(a)\,\sigma(-b)\,(1 - e^{b - a})`
so that no difference of probabilities is ever formed. These functions work row-wise on arrays;
the models in ``bradley_terry`` and ``style`` build :math:`d` from their parameters and chain
the derivatives through it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray
from scipy.special import expit, log_expit

__all__ = [
    "ETA_CEILING",
    "ETA_FLOOR",
    "RowCurvature",
    "RowGradient",
    "row_curvature",
    "row_gradient",
    "is_at_bound",
    "row_log_likelihood",
    "single_outcome_value_and_gradient",
]

#: Lower bound of the tie threshold: a tie probability of exactly zero would make a single tie
#: infinitely surprising.
ETA_FLOOR = 1e-4
#: Upper bound of the tie threshold. Data made only of ties drive the unpenalised :math:`\eta`
#: towards infinity; at 10 a tie between equals has probability 0.99991, so the bound changes
#: nothing a real arena can produce and keeps every such fit finite.
ETA_CEILING = 10.0

Array = NDArray[np.float64]


def is_at_bound(eta: float) -> bool:
    """Whether a fitted tie threshold stopped on ``ETA_FLOOR`` or ``ETA_CEILING``."""
    return bool(eta <= ETA_FLOOR * (1 + 1e-6) or eta >= ETA_CEILING * (1 - 1e-9))


class RowGradient(NamedTuple):
    r"""First derivatives of each row's :math:`\ell`: by :math:`d` (per row) and by :math:`\eta`."""

    d: Array
    eta: Array


class RowCurvature(NamedTuple):
    r"""Second derivatives of each row's :math:`\ell` by :math:`(d, d)`, :math:`(d, \eta)`,
    :math:`(\eta, \eta)`."""

    dd: Array
    d_eta: Array
    eta_eta: Array


def row_log_likelihood(d: Array, eta: float, wins: Array, losses: Array, ties: Array) -> Array:
    r"""Each row's log-likelihood :math:`\ell` (see the module docstring)."""
    tie_log = log_expit(d + eta) + log_expit(eta - d) + np.log(-np.expm1(-2.0 * eta))
    ll: Array = wins * log_expit(d - eta) + losses * log_expit(-d - eta) + ties * tie_log
    return ll


def row_gradient(d: Array, eta: float, wins: Array, losses: Array, ties: Array) -> RowGradient:
    r""":math:`\partial \ell / \partial d` and :math:`\partial \ell / \partial \eta` per row.

    .. math::

        \frac{\partial \ell}{\partial d} = w\,\sigma(\eta - d) - l\,\sigma(d + \eta)
            + t\,\big[\sigma(-d - \eta) - \sigma(d - \eta)\big]

        \frac{\partial \ell}{\partial \eta} = -w\,\sigma(\eta - d) - l\,\sigma(d + \eta)
            + t\,\big[\sigma(-d - \eta) + \sigma(d - \eta) + \coth\eta - 1\big]
    """
    s_u = expit(d - eta)  # sigma(u), u = d - eta
    s_v = expit(d + eta)  # sigma(v), v = d + eta
    coth_minus_one = 2.0 / np.expm1(2.0 * eta)
    g_d = wins * (1.0 - s_u) - losses * s_v + ties * ((1.0 - s_v) - s_u)
    g_eta = -wins * (1.0 - s_u) - losses * s_v + ties * ((1.0 - s_v) + s_u + coth_minus_one)
    return RowGradient(g_d, g_eta)


def row_curvature(d: Array, eta: float, wins: Array, losses: Array, ties: Array) -> RowCurvature:
    r"""Second derivatives of :math:`\ell` per row, with :math:`\sigma'(x) = \sigma(x)\sigma(-x)`.

    .. math::

        \ell_{dd} = -w\,\sigma'(u) - l\,\sigma'(v) - t\,[\sigma'(u) + \sigma'(v)]

        \ell_{d\eta} = w\,\sigma'(u) - l\,\sigma'(v) + t\,[\sigma'(u) - \sigma'(v)]

        \ell_{\eta\eta} = -w\,\sigma'(u) - l\,\sigma'(v)
            - t\,[\sigma'(u) + \sigma'(v) + \sinh^{-2}\eta]

    with :math:`u = d - \eta` and :math:`v = d + \eta`.
    """
    s_u = expit(d - eta)
    s_v = expit(d + eta)
    a = s_u * (1.0 - s_u)
    b = s_v * (1.0 - s_v)
    inv_sinh_sq = 1.0 / np.sinh(eta) ** 2
    dd = -wins * a - losses * b - ties * (a + b)
    d_eta = wins * a - losses * b + ties * (a - b)
    eta_eta = -wins * a - losses * b - ties * (a + b + inv_sinh_sq)
    return RowCurvature(dd, d_eta, eta_eta)


def single_outcome_value_and_gradient(
    d: Array, eta: float, n_first: int, n_second: int
) -> tuple[float, Array, float]:
    r"""Sum of :math:`\ell`, per-row :math:`\ell_d` and summed :math:`\ell_\eta` for rows holding
    one comparison each, ordered ``[first wins | second wins | ties]``.

    The same quantities as ``row_log_likelihood`` and ``row_gradient`` with 0/1 counts, but each
    row evaluates only the terms of its own outcome, which is what makes a fit on a million raw
    votes affordable.
    """
    win, loss, tie = d[:n_first], d[n_first : n_first + n_second], d[n_first + n_second :]
    g_d = np.empty_like(d)
    # first wins: l = log s(d - eta), l_d = s(eta - d), l_eta = -l_d
    s_win = expit(eta - win)
    g_d[:n_first] = s_win
    # second wins: l = log s(-d - eta), l_d = l_eta = -s(d + eta)
    s_loss = expit(loss + eta)
    g_d[n_first : n_first + n_second] = -s_loss
    # tie: l = log s(d + eta) + log s(eta - d) + log(1 - exp(-2 eta))
    s_v = expit(tie + eta)
    s_u = expit(tie - eta)
    g_d[n_first + n_second :] = (1.0 - s_v) - s_u
    value = (
        log_expit(win - eta).sum()
        + log_expit(-loss - eta).sum()
        + (log_expit(tie + eta) + log_expit(eta - tie)).sum()
        + tie.size * float(np.log(-np.expm1(-2.0 * eta)))
    )
    g_eta = (
        -s_win.sum()
        - s_loss.sum()
        + ((1.0 - s_v) + s_u).sum()
        + tie.size * float(2.0 / np.expm1(2.0 * eta))
    )
    return float(value), g_d, float(g_eta)
