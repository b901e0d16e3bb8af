"""The numpy backend: every per-chunk operation by its readable reference, the passes of this
package's modules (each method names the function it runs). The other backends compute the
same numbers (tests hold them to rounding) and take what they do not cover from here.

Its Data (:meth:`NumpyBackend.data`) is the model's :class:`~.model_data.ModelData`, the
constant arrays the passes read; every other backend's Data extends it.

Arrays: ``qs`` (N, D, n) are q and its derivatives of N samples (D at least what the order
needs); ``base`` the root's twist jet ((1 or N), >= order + 2, 6), which carries gravity
and, for a floating root, its motion; ``wrenches`` body index -> (N, >= order + 1, 6).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hodyn_cli.algorithms.backends import OPERATIONS
from hodyn_cli.algorithms.backends.numpy import (
    body_fixed,
    closed_form,
    elastic,
    floating,
    ik,
    partials,
    reach,
    regressor,
    sensitivities,
    spatial,
)
from hodyn_cli.algorithms.backends.numpy.common import CHUNK
from hodyn_cli.algorithms.backends.numpy.contacts import contact_frames, share
from hodyn_cli.algorithms.backends.numpy.model_data import ModelData
from hodyn_cli.core.model import Model
from hodyn_cli.modeling.contacts import Contact
from hodyn_cli.modeling.drives import Drives

__all__ = ["NumpyBackend"]


class NumpyBackend:
    """The reference: numpy, every operation, every order."""

    name = "numpy"
    #: every operation (:data:`~hodyn_cli.algorithms.backends.OPERATIONS`): the reference
    runs = frozenset(OPERATIONS)

    def describe(self) -> str:
        return "numpy"

    def data(self, model: Model) -> ModelData:
        """The model's constant arrays, built now: the caller (the API entry, a job) makes
        them once per request and passes them to every operation."""
        data = ModelData(model)
        data.made_by = self
        return data

    def rows(self, numpy_rows: int) -> int:
        """Samples per call of an operation whose numpy reference works best on
        ``numpy_rows`` (cache-sized chunks)."""
        return numpy_rows

    # -- dynamics ----------------------------------------------------------------------
    def inverse_dynamics(self, model: Model, data: ModelData, qs: np.ndarray, base: np.ndarray,
                         wrenches: dict[int, np.ndarray], *, order: int, twists: bool = False,
                         root: bool = False) -> np.ndarray | tuple[np.ndarray, ...]:
        """tau (N, order+1, n), and with ``twists`` the body-fixed twists (N, n, order+2, 6),
        with ``root`` the root's Newton-Euler wrench ``F_0`` (N, order+1, 6):
        :func:`~hodyn_cli.algorithms.backends.numpy.body_fixed.chunk`."""
        return body_fixed.chunk(model, qs, base, wrenches, order, twists=twists, root=root,
                                data=data)

    def inverse_dynamics_probes(self, model: Model, data: ModelData, probes: np.ndarray,
                                base: np.ndarray, *, order: int) -> np.ndarray:
        """tau (P, N, order+1, n) of P motions through the same positions, ``probes`` (P, N,
        D, n) (every probe's row 0 the same), no external wrenches: :meth:`inverse_dynamics`
        of each (the path's probes, :func:`~hodyn_cli.algorithms.limits.programme.path_limits`;
        the compiled kernels make the positions' share once)."""
        out = np.empty(probes.shape[:2] + (order + 1, model.nv))
        for p, qs in enumerate(probes):
            out[p] = self.inverse_dynamics(model, data, qs, base, {}, order=order)
        return out

    def joint_wrenches(self, model: Model, data: ModelData, qs: np.ndarray, base: np.ndarray,
                       wrenches: dict[int, np.ndarray], *, order: int) -> np.ndarray:
        """The joint wrenches ``F_i`` (N, order+1, n, 6), body frames, of the forward and
        backward passes: :func:`~hodyn_cli.algorithms.backends.numpy.body_fixed.joint_wrenches`
        (arguments as :meth:`inverse_dynamics`')."""
        return body_fixed.joint_wrenches(model, qs, base, wrenches, order, data=data)

    def spatial_inverse_dynamics(self, model: Model, data: ModelData, qs: np.ndarray,
                                 base: np.ndarray, wrenches: dict[int, np.ndarray], *,
                                 order: int, joint_wrenches: bool = False, root: bool = False,
                                 root_wrench: np.ndarray | None = None
                                 ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """tau (and with ``joint_wrenches`` the joint wrenches, body frames) of the spatial
        method, an independent second method (arguments as :meth:`inverse_dynamics`'):
        :func:`~hodyn_cli.algorithms.backends.numpy.spatial.chunk`; with ``root``, ``base``
        a floating root's jet and ``root_wrench`` its own external wrench (or None), ``(tau,
        F_0)``: :func:`~hodyn_cli.algorithms.backends.numpy.spatial.root_chunk`."""
        if root:
            return spatial.root_chunk(model, qs, base, wrenches, order, root_wrench)
        return spatial.chunk(model, qs, base, wrenches, order, joint_wrenches=joint_wrenches)

    def spatial_kinematics(self, model: Model, data: ModelData, qs: np.ndarray, K: int,
                           base: np.ndarray | None = None) -> spatial.SpatialKinematics:
        """Every body's pose, spatial twist and joint screw with their first K derivatives
        (``qs`` (N, >= K+2, n); ``base`` the root's spatial twist jet ((1 or N), K+1, 6) or
        None: at rest): :func:`~hodyn_cli.algorithms.backends.numpy.spatial.forward_pass`."""
        return spatial.forward_pass(model, qs, K, base)

    def root_jet(self, R: np.ndarray, Vb: np.ndarray, g: np.ndarray, K: int) -> np.ndarray:
        """A floating root's twist jet (N, K+1, 6) in the free-falling frame:
        :func:`~hodyn_cli.algorithms.backends.numpy.floating.root_jet_numpy`."""
        return floating.root_jet_numpy(R, Vb, g, K)

    def eom_matrices(self, model: Model, data: ModelData, qs: np.ndarray, r: int, base: np.ndarray,
                     wrenches: dict[int, np.ndarray] | None, with_cbar: bool = True,
                     root_twist: np.ndarray | None = None) -> closed_form.EOMMatrices:
        """M, C, Cbar, g, Q_ext and their first r derivatives: ``base`` ((1 or N), >= 2, 6)
        holds the root's gravity acceleration in ``base[:, 1]``;
        :func:`~hodyn_cli.algorithms.backends.numpy.closed_form.eom_matrices_numpy`, or with a
        floating root's twist jet ``root_twist`` (N, >= r+2, 6) the (6 + n)-square ones of
        :func:`~hodyn_cli.algorithms.backends.numpy.floating.eom_numpy`."""
        if root_twist is None:
            return closed_form.eom_matrices_numpy(model, qs, r, base, wrenches, with_cbar,
                                                  data=data)
        return floating.eom_numpy(model, qs, r, base, wrenches, with_cbar, root_twist, data=data)

    def regressor(self, model: Model, data: ModelData, qs: np.ndarray, base: np.ndarray, order: int,
                  root: bool = False) -> np.ndarray:
        """Y^(k) (N, order+1, n, 10 n), or with ``root`` a floating root's (N, order+1, 6+n,
        10 (n+1)) with its generalized force F_0 first:
        :func:`~hodyn_cli.algorithms.backends.numpy.regressor.regressor_numpy`,
        :func:`~hodyn_cli.algorithms.backends.numpy.regressor.floating_regressor_numpy`."""
        if root:
            return regressor.floating_regressor_numpy(model, qs, base, order, data=data)
        return regressor.regressor_numpy(model, qs, base, order, data=data)

    def sensitivities(self, model: Model, data: ModelData, qs: np.ndarray, base: np.ndarray,
                      wrenches: dict[int, np.ndarray], order: int, held: int = 0
                      ) -> np.ndarray:
        """``d tau^(k) / d q^(j)`` (S, N, nv - held, nv - held) for the pairs (k, j) in the
        order of :func:`~hodyn_cli.algorithms.dynamics.sensitivities.dataset_names`, the first
        ``held`` coordinates held: :func:`~hodyn_cli.algorithms.backends.numpy.sensitivities.
        complex_step`."""
        return sensitivities.complex_step(model, qs, base, wrenches, order, data=data,
                                          held=held)

    def partials(self, model: Model, data: ModelData, qs: np.ndarray, base: np.ndarray,
                 wrenches: dict[int, np.ndarray], *, partials: bool = True,
                 mass: bool = False) -> tuple[np.ndarray, ...]:
        """``d tau / d q``, ``d tau / d qd`` (N, n, n) (``base``: the root's twist and rate,
        ``wrenches`` body -> (N, 6)), and with ``mass`` the mass matrix (N, n, n) and tau
        (N, n): :func:`~hodyn_cli.algorithms.backends.numpy.partials.partials_numpy`, the
        closed-form M (it depends on q only), the body-fixed passes."""
        out: tuple[np.ndarray, ...] = ()
        if partials:
            out = _partials_in_chunks(model, qs, base, wrenches)
        if mass:
            W = {b: w[:, None] for b, w in wrenches.items()}
            at_rest = np.zeros((1, 2, 6))
            M = closed_form.eom_matrices_numpy(model, qs, 0, at_rest, None, with_cbar=False,
                                               data=data).M
            out += (M[:, 0], body_fixed.chunk(model, qs[:, :3], base[:, :2], W, 0, data=data)[:, 0])
        return out

    def spd_solve(self, M: np.ndarray, B: np.ndarray) -> np.ndarray:
        """``M^-1 B`` (N, n, k) for mass matrices M (N, n, n) and B (N, n, k) (LU)."""
        return np.linalg.solve(M, B)

    # -- sequential passes (limits/reachability.py, limits/bsplines.py) --------------------
    def reach_controllable(self, alpha: np.ndarray, beta: np.ndarray, gamma: np.ndarray,
                           delta: np.ndarray, tiny: float, lo_s: np.ndarray,
                           hi_s: np.ndarray, K: np.ndarray) -> None:
        """The backward pass from the rows, in place: :func:`.reach.controllable`."""
        reach.controllable(alpha, beta, gamma, delta, tiny, lo_s, hi_s, K)

    def reach_forward(self, alpha: np.ndarray, beta: np.ndarray, gamma: np.ndarray,
                      up: np.ndarray, down: np.ndarray, delta: np.ndarray, K: np.ndarray,
                      x: np.ndarray, u: np.ndarray) -> None:
        """Reachability's forward pass in place: :func:`.reach.forward`."""
        reach.forward(alpha, beta, gamma, up, down, delta, K, x, u)

    def reach_bounds(self, alpha: np.ndarray, beta: np.ndarray, gamma: np.ndarray,
                     up: np.ndarray, down: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                     pairs: int) -> None:
        """The bounds on x of each point's pairs of rows, in place: :func:`.reach.bounds`."""
        reach.bounds(alpha, beta, gamma, up, down, lo, hi, pairs)

    def banded_solve(self, band: np.ndarray, k: int, rhs: np.ndarray) -> None:
        """A banded system without pivoting, in place: :func:`.reach.banded_solve`."""
        reach.banded_solve(band, k, rhs)

    def bspline(self, t: np.ndarray, k: int, c: np.ndarray, x: np.ndarray, extrapolate: bool
                ) -> np.ndarray:
        """A B-spline's values (E, r): :func:`.reach.bspline`."""
        return reach.bspline(t, k, c, x, extrapolate)

    def bspline_jet(self, t: np.ndarray, k: int, c: np.ndarray, x: np.ndarray,
                    extrapolate: bool) -> np.ndarray:
        """A B-spline's values and derivatives (E, R, r): :func:`.reach.bspline_jet`."""
        return reach.bspline_jet(t, k, c, x, extrapolate)

    def elastic(self, model: Model, data: ModelData, drives: Drives, req: elastic.Requirements,
                qs: np.ndarray, base: np.ndarray, wrenches: dict[int, np.ndarray], order: int,
                extra: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """u, theta, tau_m of the full elastic model:
        :func:`~hodyn_cli.algorithms.backends.numpy.elastic.solve_full`."""
        return elastic.solve_full(model, drives, req, qs, base, wrenches, order, extra, data=data)

    # -- contacts -------------------------------------------------------------------------
    def contact_frames(self, model: Model, data: ModelData, qs: np.ndarray,
                       contacts: tuple[Contact, ...], K: int) -> tuple[np.ndarray, np.ndarray]:
        """The contact frames' jets relative to the root, R (N, m, K+1, 3, 3) and p (N, m,
        K+1, 3): :func:`~hodyn_cli.algorithms.backends.numpy.contacts.contact_frames`."""
        found = contact_frames(model, qs, contacts, K)
        return np.stack([f.R for f in found], axis=1), np.stack([f.p for f in found], axis=1)

    def contact_share(self, R: np.ndarray, p: np.ndarray, R0: np.ndarray | None,
                      point: np.ndarray, on: np.ndarray, rows: np.ndarray, Hinv: np.ndarray,
                      b: np.ndarray, rank: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The contact wrenches F (rows, K+1, k), the couple left over (rows, K+1, 6) and F
        in the contacts' axes (rows, K+1, k) of one phase: samples ``rows``, active contacts
        ``on`` (ascending) of the frames' jets R, p (:meth:`contact_frames`), ``point`` (m,)
        bool, the root's orientation jet R0 (N, K+1, 3, 3; None without a point), inverse
        weights ``Hinv`` (k, k), ``b`` (N, K+1, 6), ``rank`` one of
        :data:`~hodyn_cli.algorithms.backends.numpy.contacts.RANKS`:
        :func:`~hodyn_cli.algorithms.backends.numpy.contacts.share`."""
        return share(R[rows][:, on], p[rows][:, on],
                                  None if R0 is None else R0[rows], point[on], Hinv, b[rows],
                                  rank)

    # -- inverse kinematics --------------------------------------------------------------
    def ik_newton(self, model: Model, data: ModelData, task: ik.Task, q: np.ndarray,
                  R: np.ndarray | None, p: np.ndarray, steps: int
                  ) -> tuple[np.ndarray, np.ndarray]:
        """Newton towards the link targets: :func:`~hodyn_cli.algorithms.backends.numpy.ik.newton`."""
        return ik.newton(task, q, R, p, steps)

    def ik_rates(self, model: Model, data: ModelData, task: ik.Task, q: np.ndarray, y: np.ndarray,
                 q_ref: np.ndarray | None, gain: float
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """q and its rates for the task rates y, Algorithm 2, the condition numbers and the
        relative miss of a path shorter than its task:
        :func:`~hodyn_cli.algorithms.backends.numpy.ik.rates`."""
        return ik.rates(task, q, y, q_ref, gain)

    def ik_integrate(self, model: Model, data: ModelData, task: ik.Task, y: np.ndarray,
                     *args: Any, **kwargs: Any) -> tuple[np.ndarray, np.ndarray]:
        """A redundant arm's samples integrated lane group by lane group, as far as the
        backend gets: here none (the solver's own blocks, the reference, integrate them)."""
        n = model.n
        return np.empty((0, y.shape[1] + 1, n)), np.empty(0)


def _partials_in_chunks(model: Model, qs: np.ndarray, base: np.ndarray,
                        wrenches: dict[int, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    N, n = qs.shape[0], model.n
    dq, dqd = np.empty((N, n, n)), np.empty((N, n, n))
    for s in range(0, N, CHUNK):
        sl = slice(s, s + CHUNK)
        dq[sl], dqd[sl] = partials.partials_numpy(
            model, qs[sl, :3], base if len(base) == 1 else base[sl],
            {b: w[sl] for b, w in wrenches.items()})
    return dq, dqd
