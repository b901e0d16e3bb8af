"""The windows' sparse matrices (:mod:`~hodyn_cli.algorithms.limits.programme`) in numpy:
rows of a few entries each, and the handful of operations the programmes take on them, with
scipy.sparse's numbers to the bit.

Importing ``scipy.sparse`` cost every run of the windows 0.17-0.26 s of CPU and ~20 MB (it
imports ``numpy.testing`` and ``numpy.f2py`` through scipy's array API layer): more than its
operations on these rows of at most ``degree + 1`` entries took, which these take about as
long (benchmarks/README.md, 2026-12-02, windows17).

**Same numbers.** A sum over a row's entries (:meth:`Rows.__matmul__`) depends on their
order, and scipy's ``csr_matvec`` adds them in the order a row stores them, which each
operation sets:
``csr_matmat`` (a product: a diagonal scaling, :meth:`Rows.scaled`, or the differences of a
derivative, :meth:`Rows.differenced`) stores a row's columns in the reverse of the order its
terms first reach them, and drops those that sum to 0; ``csr_plus_csr`` (:meth:`Rows.plus`)
merges rows in column order where both matrices are canonical (every row's columns
increasing), else stores them as a product does, the first matrix's columns reached before the
second's. Each entry carries its place in that order (:attr:`Rows.order`), so every sum adds
what scipy's adds in the same order; products and sums of two terms are the same numbers in
any order (IEEE addition commutes).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

__all__ = ["Rows", "band", "stacked", "third_differences"]

#: the type of an entry's place in its row's order: float32 holds every place here exactly (a
#: derivative's product doubles them, ~2^(degree + 1) W at most) and inf, at half the memory
#: (the iiwa's point-to-point path's programmes: its peak RSS ~7 MiB above scipy's at float64)
KEY = np.float32


@dataclass(frozen=True, eq=False, repr=False)
class Rows:
    """An (m, n) sparse matrix of rows of at most W entries: (m, W) ``columns`` and
    ``values``, and ``order`` (m, W), each entry's place in its row's stored order (any
    increasing numbers; inf where the slot holds no entry: its value 0). A stored entry may
    be 0 (scipy keeps such: a B-spline that vanishes at a knot), and a product reaches from
    it all the same. A row's slots hold its entries in increasing columns (every operation
    here keeps them so: :func:`band`'s consecutive columns, a column and the next, a
    window's columns renumbered in their order), whatever order it stores them in;
    ``increasing``: it stores them in that order (:meth:`canonicalised`)."""

    columns: np.ndarray
    values: np.ndarray
    order: np.ndarray
    n: int
    increasing: bool = False

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.values), self.n

    @cached_property
    def stored(self) -> np.ndarray:
        """(m, W) whether each slot holds an entry."""
        return np.isfinite(self.order)

    def __getitem__(self, rows: np.ndarray) -> Rows:
        """The rows ``rows`` (indices or a mask), in that order."""
        return Rows(self.columns[rows], self.values[rows], self.order[rows], self.n,
                    self.increasing)

    def scaled(self, g: np.ndarray) -> Rows:
        """``diags(g) @ self``: row i times ``g[i]`` (``csr_matmat``: its order reversed, the
        products that are 0 dropped)."""
        values = np.asarray(g, float)[:, None] * self.values
        return Rows(self.columns, *_dropped(values, -self.order), self.n)

    def differenced(self, down: np.ndarray, up: np.ndarray) -> Rows:
        """``self @ diff``, ``diff`` the (n, n + 1) bidiagonal of a B-spline's derivative
        (``diff[j, j] = down[j]``, ``diff[j, j + 1] = up[j]``), for rows whose slots are
        consecutive columns (:func:`band`'s): each entry reaches its own column and the next,
        in that order, each column the sum of the (at most) two terms."""
        m = len(self.values)
        none, zero = np.full((m, 1), np.inf, KEY), np.zeros((m, 1))
        # (the places in csr_matmat's sequence: an entry at k reaches its own column at 2 k,
        # the next at 2 k + 1; a column's first, reversed, is its place in the product)
        first = np.minimum(np.concatenate([2 * self.order, none], axis=1),
                           np.concatenate([none, 2 * self.order + 1], axis=1))
        at = self.columns
        terms = (np.concatenate([self.values * down[at], zero], axis=1)
                 + np.concatenate([zero, self.values * up[at]], axis=1))
        columns = np.concatenate([at, at[:, -1:] + 1], axis=1)
        return Rows(columns, *_dropped(terms, -first), self.n + 1)

    def plus(self, other: Rows, sign: float = 1.0) -> Rows:
        """``self + other`` (``sign`` -1: ``self - other``), both with their rows' slots at
        the same columns: ``csr_plus_csr``'s order (module docstring)."""
        a, b = self.stored, other.stored
        values = self.values + other.values if sign > 0 else self.values - other.values
        if self.canonical and other.canonical:
            # (merged: columns increasing)
            order = np.where(a | b, self.columns.astype(KEY), np.inf)
            return Rows(self.columns, *_dropped(values, order), self.n)
        # (other's entries reached after all of self's)
        shift = np.max(self.order, where=a, initial=0.0) - np.min(other.order, where=b,
                                                                   initial=0.0) + 1
        reached = np.where(a, self.order, np.where(b, other.order + shift, np.inf))
        return Rows(self.columns, *_dropped(values, -reached), self.n)

    @cached_property
    def canonical(self) -> bool:
        """Whether every row stores its columns increasing (scipy's
        ``csr_has_canonical_format``): each entry stored after those of the slots before it.
        (The first rows first: most matrices here store every row in reverse.)"""
        return _rising(self.order[:64], self.stored[:64]) and _rising(self.order, self.stored)

    def columns_of(self, free: np.ndarray) -> Rows:
        """``self[:, free]`` (``free`` increasing): the entries in those columns, renumbered,
        in the order they were."""
        where = np.full(self.n, -1, np.int32)
        where[free] = np.arange(len(free), dtype=np.int32)
        new = where[self.columns]
        keep = self.stored & (new >= 0)
        return Rows(np.where(keep, new, 0), np.where(keep, self.values, 0.0),
                    np.where(keep, self.order, np.inf), len(free))

    def __matmul__(self, x: np.ndarray) -> np.ndarray:
        """``self @ x``: each row's terms added in its stored order (``csr_matvec``)."""
        columns, values, stored = self._in_order
        # (an empty slot's term +0, not 0 x[its column 0]: a nan or inf there reaches no row
        # that does not hold that column, as in scipy; a +0 changes no sum, one from +0 is
        # never -0)
        terms = np.where(stored, values * x.take(columns), 0.0)
        out = np.zeros(len(self.values))
        for t in range(terms.shape[1]):  # (a row's slots: degree + 1 or so, not its rows)
            out += terms[:, t]
        return out

    @cached_property
    def _in_order(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(m, W) the columns and values of each row's slots in its stored order, and which
        hold an entry (the empty ones anywhere; the windows' design matrices are read at
        every step: sorted once)."""
        if self.increasing:
            return self.columns, self.values, self.stored
        m, W = self.values.shape
        flat = np.arange(m)[:, None] * W + np.argsort(self.order, axis=1)
        return (self.columns.ravel().take(flat), self.values.ravel().take(flat),
                self.stored.ravel().take(flat))

    def tdot(self, w: np.ndarray) -> np.ndarray:
        """``self.T @ w`` (``csc_matvec`` of the transpose: each column's terms added row by
        row, in the rows' order)."""
        out = np.zeros(self.n)
        held = self.stored
        np.add.at(out, self.columns[held], (self.values * w[:, None])[held])
        return out

    @property
    def nnz(self) -> int:
        """How many entries the rows store (scipy's ``nnz``)."""
        return int(self.stored.sum())

    def __abs__(self) -> Rows:
        """The entries' magnitudes, stored as they were."""
        return Rows(self.columns, np.abs(self.values), self.order, self.n, self.increasing)

    def max(self, axis: int | None = None) -> Any:
        """The largest entry of each row (``axis`` 1, (m,)) or of all (None), 0 among them
        (as scipy's, whose rows of fewer entries than columns hold zeros)."""
        return self.values.max(axis=axis, initial=0.0)

    def sorted(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The CSR arrays ``(indptr, indices, data)``, each row's columns increasing (scipy's
        canonical format, after ``sum_duplicates``), its stored zeros kept."""
        held = self.stored
        indptr = np.concatenate([[0], np.cumsum(held.sum(axis=1))])
        return indptr, self.columns[held], self.values[held]

    def canonicalised(self) -> Rows:
        """The same matrix, each row stored in increasing columns, its slots' order
        (``coo.tocsr()``'s, after its ``sum_duplicates``: no column twice here)."""
        order = np.where(self.stored, np.arange(self.values.shape[1], dtype=KEY), np.inf)
        return Rows(self.columns, self.values, order, self.n, increasing=True)


def _rising(keys: np.ndarray, held: np.ndarray) -> bool:
    """Whether in every row the ``held`` slots' ``keys`` increase from slot to slot."""
    before = np.maximum.accumulate(np.where(held, keys, -np.inf), axis=1)
    return bool(np.all((keys[:, 1:] > before[:, :-1]) | ~held[:, 1:]))


def _dropped(values: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``values`` and ``order`` less the entries a product or a sum leaves out: those reached
    that are 0, and the slots never reached (order inf)."""
    keep = np.isfinite(order) & (values != 0)
    return np.where(keep, values, 0.0), np.where(keep, order, np.inf)


def band(first: np.ndarray, values: np.ndarray, n: int) -> Rows:
    """The (len(first), n) matrix whose row i stores ``values[i]`` at the consecutive
    columns ``first[i]`` on, increasing (zeros included, as ``csr_array((data, columns,
    starts))`` stores them)."""
    W = values.shape[1]
    columns = np.asarray(first, np.int32)[:, None] + np.arange(W, dtype=np.int32)
    return Rows(columns, np.asarray(values, float),
                np.broadcast_to(np.arange(W, dtype=KEY), values.shape).copy(), n)


def stacked(blocks: list[Rows]) -> Rows:
    """The blocks' rows one after the other (``vstack`` of CSR blocks: each row as stored),
    all of the same columns; slots padded to the widest block's. A block of no rows adds
    none, whatever its kind (tests/test_optimal.py's programmes of no limits give scipy's)."""
    n = blocks[0].shape[1]
    blocks = [b for b in blocks if b.shape[0]]
    if not blocks:  # (scipy's vstack of no rows: (0, n))
        return Rows(np.zeros((0, 1), np.intp), np.zeros((0, 1)), np.full((0, 1), np.inf, KEY),
                    n)
    W = max(b.values.shape[1] for b in blocks)

    def pad(a: np.ndarray, fill: float) -> np.ndarray:
        if a.shape[1] == W:
            return a
        return np.concatenate([a, np.full((len(a), W - a.shape[1]), fill, a.dtype)], axis=1)

    return Rows(np.concatenate([pad(b.columns, 0) for b in blocks]),
                np.concatenate([pad(b.values, 0.0) for b in blocks]),
                np.concatenate([pad(b.order, np.inf) for b in blocks]), blocks[0].n)


def third_differences(c: np.ndarray) -> np.ndarray:
    """``diags([-1, 3, -3, 1], [0, 1, 2, 3], shape=(n - 3, n)) @ c`` (``dia_matvec``: the
    diagonals added one after the other, in their order)."""
    n = len(c)
    out = np.zeros(n - 3)
    for k, w in enumerate((-1.0, 3.0, -3.0, 1.0)):
        out = out + w * c[k : n - 3 + k]
    return out
