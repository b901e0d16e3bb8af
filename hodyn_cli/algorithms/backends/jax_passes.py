"""The body-fixed passes and the regressor as JAX programs (:mod:`.gpu` compiles and runs them).

The equations are those of :mod:`hodyn_cli.algorithms.dynamics.body_fixed` and
:mod:`hodyn_cli.algorithms.dynamics.regressor` (their numpy functions are the references),
written for a device: the samples are the **last** axis of every array, so each operation is
one elementwise loop over the samples that XLA fuses with its neighbours; no small matrix
products. A jet is an array (6, orders, ..., samples). Per body i with parent p (p = -1: the
root), ``s = sin q_i``, ``c = 1 - cos q_i`` (revolute; prismatic: ``s = q_i``, ``c = 0``)::

    Ad_{C_{i,p}} x = y - s ad_X y + c ad_X^2 y,   y = Ad_{B_i^-1} x              (17)
    a_{m,0} = Ad_{C_{i,p}} V_p^(m)
    a_{m,k} = a_{m+1,k-1} - sum_j C(k-1,j) q_i^(j+1) ad_{X_i} a_{m,k-1-j}
    V_i^(k) = a_{0,k} + X_i q_i^(k+1)                                             (40)
    F_i^(k) = M_i V_i^(k+1) - sum_j C(k,j) ad*_{V_i^(j)} M_i V_i^(k-j) + W_i^(k)
              + sum_{c child} Ad^T_{C_{c,i}} b^c_{k,0}                             (42), (25)
    b_{0,m} = F^(m),   b_{k+1,m} = b_{k,m+1} - sum_j C(m,j) q^(j+1) ad_X^T b_{k,m-j}
    tau_i^(k) = X_i . F_i^(k)
    F_0^(k) = M_0 V_0^(k+1) - sum_j C(k,j) ad*_{V_0^(j)} M_0 V_0^(k-j)
              + sum_{c child of root} Ad^T_{C_{c,0}} b^c_{k,0}                    (floating root)

and the regressor (Garofalo et al. (13)), with ``E_p`` the unit inertia of body b's
parameter p::

    A_b^(k)[:, p] = E_p V_b^(k+1) - sum_j C(k,j) ad*_{V_b^(j)} E_p V_b^(k-j)
    Y^(k)[c, 10 b + p] = sum_j C(k,j) J_b[:, c]^(j) . A_b^(k-j)[:, p]
    J_b = Ad_{C_{b,p}} J_p (the table a above) + X_b in column b

(``J_b`` every column at once: a column c that is not on b's path to the root is carried
down as zeros and stays 0, and so does its row). A floating root adds the root's 6 unit
twists as the first 6 columns (``J_0 = [I 0]``, the rows of ``F_0``) and its own 10
parameters (``A_0`` from the root's jet) as the first 10 columns.

Two ways to visit the bodies, one set of equations (:class:`_Joint`):

- :func:`inverse_dynamics` unrolls them: the model's constants (``Ad_{B_i^-1}``, ``ad_{X_i}``,
  ``M_i``, ``X_i``) are literals of the program and a constant matrix applied to a screw is
  the sum of its non-zero terms (:func:`mat`): fewest operations and memory passes, a
  program that grows with the robot (compiling takes seconds).
- :func:`regressor` loops over them (``fori_loop``, parents first; the tree is the model's
  ``parent`` array, read in the loop, and the constants are arrays on the device): one body's
  equations compiled once whatever the robot; its result, n x 10 n per sample and order,
  costs more than the loop's memory passes.
"""

from __future__ import annotations

from functools import reduce
from math import comb

import jax.numpy as jnp
import numpy as np
from jax import Array, lax

from hodyn_cli.algorithms.backends.numpy.model_data import ModelData
from hodyn_cli.algorithms.backends.numpy.regressor import UNIT_INERTIAS
from hodyn_cli.core import lie

__all__ = ["constants", "mat", "coad", "inverse_dynamics", "regressor"]


def constants(data: ModelData) -> dict[str, np.ndarray]:
    """The model's arrays the programs take (the caller keeps them on the device): per body
    ``A0 = Ad_{B^-1}``, ``N = ad_X``, ``M``, ``X``, ``revolute``, ``parent``, and the root's
    ``M0``."""
    return {"A0": data.adjoints[0], "N": lie.ad(data.X), "M": data.M, "X": data.X,
            "revolute": data.revolute.astype(bool), "parent": data.parent, "M0": data.root_M}


def mat(A, x):
    """``A x`` along axis 0 of x for a 6x6 A. A numpy matrix is a constant of the program: per
    row the sum of its non-zero terms (``+-1`` without a product); a traced one (a body of a
    loop) costs six multiply-adds of whole arrays.

    >>> A = np.array([[0.0, 2.0, 0, 0, 0, 0], [1.0, -1.0, 0, 0, 0, 0]] + [[0.0] * 6] * 4)
    >>> mat(A, jnp.arange(1.0, 7.0))[:2].tolist(), mat(jnp.asarray(A), jnp.ones(6))[:2].tolist()
    ([4.0, -1.0], [2.0, 0.0])
    """
    if isinstance(A, np.ndarray):
        xs = _rows(x, np.flatnonzero(A.any(axis=0)))
        rows = []
        for row in A:  # (lax's operations: the terms' shapes are x's rows', nothing to broadcast)
            terms = [xs[j] if a == 1 else lax.neg(xs[j]) if a == -1 else lax.mul(xs[j], float(a))
                     for j, a in enumerate(row) if a != 0]
            rows.append(reduce(lax.add, terms) if terms else jnp.zeros(x.shape[1:], x.dtype))
        return jnp.stack(rows)
    shape = (len(A),) + (1,) * (x.ndim - 1)
    xs, As = _rows(x, range(A.shape[1])), _rows(A, range(A.shape[1]), axis=1)
    return sum(As[j].reshape(shape) * xs[j] for j in range(A.shape[1]))


def _rows(x, which, axis: int = 0) -> dict:
    """``{j: x[j]}`` (along ``axis``) for the indices ``which``, each sliced once. The programs'
    cost before XLA's is tracing them, an operation at a time: jnp's ``x[j]`` parses its
    index at each call (~4 times lax's slice), and ``mat`` and the cross products took the
    same row again for each term (with the slices below: the gripper arm's inverse dynamics
    at order 2 8 193 -> 5 057 operations, the same numbers; tests/test_gpu_backend.py)."""
    return {int(j): lax.index_in_dim(x, int(j), axis, keepdims=False) for j in which}


def _span(x, start: int, stop: int | None, axis: int = 1):
    """``x[:, start:stop]`` (along ``axis``): lax's slice, not jnp's parsed index."""
    return lax.slice_in_dim(x, start, stop, axis=axis)


def _dot(a, b):
    """``a . b`` along axis 0 (6) of arrays that broadcast (a numpy ``a``: its non-zero terms)."""
    if isinstance(a, np.ndarray):
        return mat(a[None], b)[0]
    a, b = _rows(a, range(6)), _rows(b, range(6))
    return sum(a[e] * b[e] for e in range(6))


def _cross(a: list, b: list):
    """``a x b`` of 3-vectors given as their rows."""
    return jnp.stack([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                      a[0] * b[1] - a[1] * b[0]])


def coad(V, W):
    """``ad_V^T W = -(w x m + v x f; w x f)`` for twists V = (w; v) and wrenches W = (m; f)
    along axis 0 (:func:`hodyn_cli.core.lie.coad`)."""
    Vs, Ws = _rows(V, range(6)), _rows(W, range(6))
    w, v = [Vs[j] for j in range(3)], [Vs[j] for j in range(3, 6)]
    m, f = [Ws[j] for j in range(3)], [Ws[j] for j in range(3, 6)]
    return -jnp.concatenate([_cross(w, m) + _cross(v, f), _cross(w, f)])


class _Joint:
    """Joint i's constants and jets ``q`` (D, S) for one block of samples: of the numpy
    :func:`constants` and a body number (unrolled), or of their device arrays and the index
    of a loop."""

    def __init__(self, c: dict, qs, i):
        self.A0, self.N, self.X, self.q = c["A0"][i], c["N"][i], c["X"][i], _row(qs, i, axis=1)
        self.qk = _rows(self.q, range(self.q.shape[0]))  # q^(k), each sliced once
        q0, revolute = self.qk[0], c["revolute"][i]
        self.s: Array
        self.c: Array | None  # None: no c term
        if isinstance(revolute, np.bool_):   # ad_X^2 = 0 for a prismatic joint: no c term
            self.s, self.c = (jnp.sin(q0), 1.0 - jnp.cos(q0)) if revolute else (q0, None)
        else:                                # (there c multiplies ad_X^2 y = 0)
            self.s, self.c = jnp.where(revolute, jnp.sin(q0), q0), 1.0 - jnp.cos(q0)

    def adjoint(self, x):
        """``Ad_{C_{i,p}} x`` (17): ``exp(-q ad_X) Ad_{B^-1} x`` by Rodrigues."""
        y = mat(self.A0, x)
        Ny = mat(self.N, y)
        y = y - self.s * Ny
        return y if self.c is None else y + self.c * mat(self.N, Ny)

    def adjoint_T(self, x):
        """``Ad_{C_{i,p}}^T x``: the transpose of :meth:`adjoint`."""
        Nx = mat(self.N.T, x)
        y = x - self.s * Nx
        return mat(self.A0.T, y if self.c is None else y + self.c * mat(self.N.T, Nx))

    def transport_down(self, x, M: int):
        """``d^k/dt^k (Ad_{C_{i,p}} x)``, k < M, (6, M, ...) from x's derivatives (6, >= M, ...):
        the table ``a_{m,k}`` of the module docstring."""
        a = [self.adjoint(_span(x, 0, M))]        # a[k][:, m] = a_{m,k}
        Na = [mat(self.N, a[0])]
        for k in range(1, M):
            col = _span(a[k - 1], 1, None)
            for j in range(k):
                col = col - comb(k - 1, j) * self.qk[j + 1] * _span(Na[k - 1 - j], 0, M - k)
            a.append(col)
            Na.append(mat(self.N, col))
        return jnp.stack([_rows(a[k], (0,), axis=1)[0] for k in range(M)], axis=1)

    def transport_up(self, F):
        """``d^k/dt^k (Ad^T_{C_{i,p}} F)``, k <= r, (6, r+1, S) from F's derivatives (6, r+1, S):
        the table ``b_{k,m}`` of the module docstring."""
        r1 = F.shape[1]
        b = list(_rows(F, range(r1), axis=1).values())    # b[m] = b_{k,m}, row k of the table
        out = [self.adjoint_T(b[0])]
        for _ in range(1, r1):
            Nb = [mat(self.N.T, bm) for bm in b[:-1]]
            b = [b[m + 1] - sum(comb(m, j) * self.qk[j + 1] * Nb[m - j] for j in range(m + 1))
                 for m in range(len(b) - 1)]
            out.append(self.adjoint_T(b[0]))
        return jnp.stack(out, axis=1)

    def screw(self, M: int):
        """``X_i q_i^(k+1)``, k < M, (6, M, S): the joint's share of the twist derivatives."""
        return mat(self.X[:, None], self.q[None, 1 : M + 1])


def _row(a, i, axis: int = 0):
    """``a[i]`` along ``axis``, i a number or traced (one dynamic slice)."""
    return lax.dynamic_index_in_dim(a, i, axis, keepdims=False)


def _newton_euler(V, h, r: int):
    """``h^(k+1) - sum_j C(k,j) ad*_{V^(j)} h^(k-j)``, k <= r, (6, r+1, ...): the derivatives
    of ``M V' - ad*_V M V`` for momenta ``h = M V`` (42), (25); V broadcasts against h."""
    Vs, hs = _rows(V, range(r + 1), axis=1), _rows(h, range(r + 2), axis=1)
    return jnp.stack([hs[k + 1] - sum(comb(k, j) * coad(Vs[j], hs[k - j])
                                      for j in range(k + 1)) for k in range(r + 1)], axis=1)


def inverse_dynamics(c: dict, qs, base, wrenches: dict, r: int, root: bool):
    """tau^(k) (r+1, n, S) and, with ``root``, ``F_0^(k)`` (6, r+1, S): the passes (40)-(42),
    bodies unrolled, for the model's numpy :func:`constants` ``c``, joint jets ``qs``
    (D >= r+3, n, S), the root's jet ``base`` (6, r+2, S or 1) and wrenches body -> (6, r+1, S)."""
    parent = c["parent"]
    joints = [_Joint(c, qs, i) for i in range(len(parent))]
    V: list = []
    for i, J in enumerate(joints):                                         # (40)
        Vp = base if parent[i] < 0 else V[parent[i]]
        V.append(J.transport_down(Vp, r + 2) + J.screw(r + 2))
    carried: list = [[] for _ in joints] + [[]]    # what children carry up; [-1]: the root
    tau: list = [None] * len(joints)
    for i in reversed(range(len(joints))):                                 # (42), (25)
        F = _newton_euler(V[i], mat(c["M"][i], V[i]), r) + sum(carried[i])
        if i in wrenches:
            F = F + wrenches[i]
        tau[i] = _dot(joints[i].X, F)
        carried[parent[i]].append(joints[i].transport_up(F))
    if not root:
        return jnp.stack(tau, axis=1)
    return jnp.stack(tau, axis=1), _newton_euler(base, mat(c["M0"], base), r) + sum(carried[-1])


def _body_regressor(V, r: int):
    """``A^(k)[:, p]``, k <= r, (6, r+1, 10, S) of one body from its twist jet V (6, r+2, S)."""
    y = jnp.stack([mat(E, V) for E in UNIT_INERTIAS], axis=2)   # E_p V^(m)
    return _newton_euler(V[:, :, None], y, r)


def _jacobian_sums(J, A, r: int):
    """``sum_j C(k,j) J^(j)[:, c] . A^(k-j)[:, p]``, k <= r, (r+1, columns, 10, S), for the
    columns J (6, r+1, columns, S) and a body's A (6, r+1, 10, S)."""
    Js = [J[:, j, :, None] for j in range(r + 1)]
    As = [A[:, m, None] for m in range(r + 1)]
    return jnp.stack([sum(comb(k, j) * _dot(Js[j], As[k - j])
                          for j in range(k + 1)) for k in range(r + 1)])


def regressor(c: dict, qs, base, r: int, root: bool):
    """``Y^(k)`` (r+1, rows, cols, S): rows the joints (with ``root`` the 6 of ``F_0`` first),
    columns 10 per body (with ``root`` the root's 10 first), bodies in a loop, for the model's
    :func:`constants` ``c`` on the device, joint jets ``qs`` (D >= r+3, n, S) and the root's
    jet ``base`` (6, r+2, S or 1)."""
    n, S = qs.shape[1], qs.shape[2]
    R0, P0 = (6, 10) if root else (0, 0)
    V = jnp.zeros((n + 1, 6, r + 2, S)).at[0].set(jnp.broadcast_to(base, (6, r + 2, S)))
    cols = jnp.zeros((n + 1, 6, r + 1, R0 + n, S))                # row b+1: J_b, row 0: J_0
    if root:
        cols = cols.at[0, :, 0, :6].set(jnp.broadcast_to(jnp.eye(6)[..., None], (6, 6, S)))
    Y = jnp.zeros((r + 1, R0 + n, P0 + 10 * n, S))

    def body(b, carry):                                # rows b+1 of V, cols: body b's
        V, cols, Y = carry
        J, p = _Joint(c, qs, b), c["parent"][b] + 1
        Vb = J.transport_down(_row(V, p), r + 2) + J.screw(r + 2)                      # (40)
        own = J.X[:, None, None] * (jnp.arange(R0 + n) == R0 + b)[:, None]     # X_b, column b
        Jb = J.transport_down(_row(cols, p), r + 1).at[:, 0].add(own)
        block = _jacobian_sums(Jb, _body_regressor(Vb, r), r)
        return (lax.dynamic_update_index_in_dim(V, Vb, b + 1, 0),
                lax.dynamic_update_index_in_dim(cols, Jb, b + 1, 0),
                lax.dynamic_update_slice(Y, block, (0, 0, P0 + 10 * b, 0)))

    Y = lax.fori_loop(0, n, body, (V, cols, Y))[2]
    if root:                                                       # the root itself, J_0 = [I 0]
        own = jnp.moveaxis(jnp.broadcast_to(_body_regressor(base, r), (6, r + 1, 10, S)), 0, 1)
        Y = Y.at[:, :6, :10].set(own)
    return Y
