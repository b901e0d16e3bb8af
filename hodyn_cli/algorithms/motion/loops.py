"""Closed loops: the passive joints' motion from the actuated ones', the configuration-dependent
coupling :class:`Closed` (:mod:`hodyn_cli.core.coupling`) and the constraint forces.

The loops file (:mod:`hodyn_cli.modeling.loops`) cuts each loop at a joint: frames a and b
must coincide, ``c(q) = 0`` with rows (root axes) ``p_a - p_b`` (a point) and
``log(R_a R_b^T)`` (a frame's orientation). Its Jacobian ``J = J_a - J_b``: a frame's
angular rows ``J_w`` (the spatial Jacobian's, the screws ``Y_j`` of the joints on its path,
:mod:`hodyn_cli.algorithms.motion.jacobians`) and a point's ``J_v - skew(p) J_w``, whose time
derivatives are Leibniz's, ``J_v^(k) - sum_j C(k, j) skew(p^(j)) J_w^(k-j)``.

**Kinematics** come from the backend's ``contact_frames`` (the compiled kernel's forward pass
over the bodies on the cuts' paths only, numpy's with ``HODYN_NO_KERNEL``): the jets of the
cuts' frames and of the path joints' body frames, in root axes; the screws and J follow in a
few batched products (:meth:`Closed._jacobian`).

**Redundant rows** (a planar four-bar described by a 3-D point: one row is 0): the SVD of J at
the assembled reference, ``J = U S V^T``, keeps the r rows ``P = U_r^T`` of singular values
above ``RANK_TOL`` of the largest; the loops hold ``P c = 0`` (the rest is checked at every
sample: the row space must not turn with the configuration). ``r = n - m``: the m actuated
joints are the independent coordinates.

**Positions**: per chunk, batched over samples, Newton on ``P c(q_a, q_p) = 0`` for q_p (``q_p
<- q_p - (P J_p)^-1 P c``), continued in steps of at most ``STEP`` rad of the actuated joints:
every ``COARSE``-th sample from the reference assembly (so every chunk stays on its branch),
then by halving, each sample in between from its solved neighbour (warm-started along the file,
a batch per level). With the times and derivatives (a trajectory), only the anchors go so,
every ``TAYLOR``-th sample and the last, and their derivatives follow; the samples between two
anchors start from the two-point Hermite polynomial of their q_p and derivatives (degree 2D -
1) and Newton converges in a few steps (a sample too far from its nearest anchor in time
or in the actuated joints, where that anchor's Taylor polynomial ``sum_k q_p^(k)(t_0) (t -
t_0)^k / k!`` disagrees with the Hermite one, or that Newton moves farther than ``STEP``, is
continued from the anchor instead).

**Derivatives** (implicit function theorem, exact): ``c(q(t)) = 0`` for all t, so
``c^(k) = d^(k-1)(J q') = sum_{j<k} C(k-1, j) J^(j) q^(k-j) = 0``; ``J^(j)`` needs q to order
j only, so order by order ``q_p^(k) = -(P J_p)^-1 P (J_a q_a^(k) + sum_{1<=j<k} C(k-1, j)
J^(j) q^(k-j))``. The bracket is ``c^(k)`` of the motion with q_p^(k) still 0: the k-th
derivative of the cuts' gap from their frames' jets to order k (``p_a^(k) - p_b^(k)``, and
``(w_a - w_b)^(k-1)`` with ``skew(w) = R' R^T``), no derivative of J needed.

**Forces**: the tree's torques of that motion, ``tau_full = M qdd + h``, are what the
actuators and the cut-joint forces lambda (on link a, by link b, at the cut: force root axes;
moment) give, ``tau_full = S^T tau_a + J^T lambda``: the passive rows ``J_p^T lambda =
tau_full,p`` give lambda (of the r kept rows, ``P^T lambda_r``: the minimum-norm one), and
``tau_a = tau_full,a - J_a^T lambda = G^T tau_full`` with ``G = [I; -J_p^-1 J_a]`` (virtual
work); the time derivatives by Leibniz over the jets of J (:mod:`hodyn_cli.core.jets`).
"""

from __future__ import annotations

import weakref
from functools import cache
from math import ceil, comb, factorial
from typing import NamedTuple

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.core import coupling, jets, lie
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import HodynError
from hodyn_cli.modeling.loops import Loops

__all__ = ["Closed", "close", "RANK_TOL", "SINGULAR_TOL", "STEP"]

#: singular values of J below this share of the largest: redundant rows
RANK_TOL = 1e-9
#: (P J_p)'s smallest singular value below this share of its largest: a singular configuration
SINGULAR_TOL = 1e-8
#: the largest step of the actuated joints (rad or m) in the continuation from the reference
STEP = 0.2
#: the base parameters' random actuated positions: within this of the assembly's (rad or m)
SPREAD = 0.5
#: every COARSE-th sample is continued from the assembly, the others from their neighbours
COARSE = 64
#: with derivatives: every TAYLOR-th sample is found first, the others from their polynomials
TAYLOR = 8
#: ... where the nearest one's Taylor polynomial's last term and its difference from the
#: Hermite polynomial are below this (rad or m)
TAYLOR_TOL = 0.05
#: Newton's tolerance on the kept rows' residual (m, rad) and its iterations per solve
RESIDUAL_TOL, ITERATIONS = 1e-13, 30
#: a Newton step below this share of the one before: quadratic convergence (see _newton)
QUADRATIC = 1e-3


def _turned(R: np.ndarray, x: np.ndarray) -> np.ndarray | None:
    """``R_j x_j`` (..., P, 3) of rotations R (..., P, 3, 3) and vectors x (P, 3), column by
    column (numpy's matmul of 3 x 3 stacks costs ~10x as much), over the columns some x has
    (a joint axis along a body axis: one); None where every x is 0 (revolute joints' X_v)."""
    used = np.flatnonzero(np.abs(x).max(axis=0) > 0)
    if used.size == 0:
        return None
    return sum(R[..., c] * x[:, c, None] for c in used)


@cache
def _hermite(D: int) -> np.ndarray:
    """The two-point Hermite interpolation on [0, 1] of degree 2D - 1: (2D, 2D) W with
    ``p(tau) = [tau^0 .. tau^(2D-1)] W [f(0), f'(0), .., f^(D-1)(0), f(1), .., f^(D-1)(1)]``
    (the inverse of the monomials' derivatives at 0 and 1)."""
    V = np.zeros((2 * D, 2 * D))
    for k in range(D):
        V[k, k] = factorial(k)
        V[D + k, k:] = [factorial(j) / factorial(j - k) for j in range(k, 2 * D)]
    return np.linalg.inv(V)


class Followed(NamedTuple):
    """A frame whose jets the backend's ``contact_frames`` follows: a link and a pose (4 x 4)
    in it (a cut's frame, or a joint's body frame)."""

    link: str
    T: np.ndarray


def close(model: Model, loops: Loops) -> Model:
    """The model with its loops closed: the actuated joints its coordinates, its coupling a
    :class:`Closed` (assembled at ``loops.guess``; errors name the loops file)."""
    from dataclasses import replace
    from functools import partial

    if (model.mimic[:, 0] >= 0).any():
        raise HodynError("a robot with <mimic> joints and loops: not supported", loops.source)
    return replace(model, actuated=loops.actuated, coupling_kind=partial(Closed, loops=loops))


class Closed(coupling.Coupling):
    """The coupling of closed loops: ``q_full = phi(q_a)`` by Newton, G(q) and its time
    derivatives from the loops' Jacobian (module docstring)."""

    active = True

    def __init__(self, model: Model, loops: Loops):
        super().__init__(model)
        self.model, self.loops = model, loops
        self.a = np.array(loops.actuated)
        self.p = np.array([i for i in range(model.n) if i not in loops.actuated])
        #: the cuts' frames a, b of every loop, in turn
        self.sides = tuple(Followed(link, T) for c in loops.closures
                           for link, T in ((c.link_a, c.T_a), (c.link_b, c.T_b)))
        bodies = [model.links[f.link].body for f in self.sides]
        #: the joints on the paths to the cuts (whose screws make J), their body frames, and
        #: [side, path joint]: +1 where the joint moves that frame
        self.path = np.flatnonzero(model.ancestry[:, [b for b in bodies if b >= 0]].any(axis=1))
        self.joint_frames = tuple(
            Followed(model.link_names[j], np.linalg.inv(model.links[model.link_names[j]].T))
            for j in self.path)
        self.moves = np.array([[b >= 0 and bool(model.ancestry[j, b]) for j in self.path]
                               for b in bodies], dtype=float).reshape(len(bodies), -1)
        #: per loop, ``arm_j = mu_j p_j - rho_j`` (:meth:`_jacobian`) as weights (P, F) of the
        #: followed frames' origins (the cuts' then the path joints')
        self.arms = []
        for i in range(len(loops.closures)):
            weights = np.zeros((len(self.path), len(self.sides) + len(self.path)))
            weights[:, 2 * i], weights[:, 2 * i + 1] = -self.moves[2 * i], self.moves[2 * i + 1]
            weights[:, len(self.sides):] = np.diag(self.moves[2 * i] - self.moves[2 * i + 1])
            self.arms.append(weights)
        self.rows = [c.rows for c in loops.closures]
        #: the constraint force columns' suffixes ``<loop>_<component>``
        self.components = tuple(f"{c.name}_{x}" for c in loops.closures for x in c.components)
        self.n_rows = R = len(self.components)
        self.P = np.eye(R)
        self.reference = self._assemble(loops.guess)
        J = self.residual(self.reference[None])[1][0]
        # rows exactly 0 there (a planar mechanism's out-of-plane row) stay out of P exactly:
        # their constraint forces are then exactly 0, whatever rounding the SVD does
        live = np.abs(J).max(axis=1) > 0
        if not live.any():
            raise HodynError("the loops constrain no joint at the assembly (their Jacobian is "
                             "0): nothing to close", loops.source)
        U, s, _ = np.linalg.svd(J[live])
        r = int((s > RANK_TOL * s[0]).sum())
        self.P = np.zeros((r, R))
        self.P[:, live] = U[:, :r].T
        self.rank = r
        if model.n - r != len(self.a):
            raise HodynError(
                f"the loops leave {model.n - r} independent coordinate(s) ({R} constraint rows, "
                f"{r} independent) but 'actuated' names {len(self.a)} joint(s)", loops.source)
        Jp = (self.P @ J)[:, self.p]
        if np.linalg.svd(Jp, compute_uv=False).min() < SINGULAR_TOL * np.abs(Jp).max():
            raise HodynError("the actuated joints do not set the passive ones at the assembled "
                             "guess (singular there): actuate others or change [guess]",
                             loops.source)
        self.m, self.coordinate_names = len(self.a), model.coordinate_names
        #: ``P J^(k)`` and ``(P J_p)^-1``'s jets along a joint motion (:meth:`_along`): what
        #: :meth:`forces`, :meth:`constraint_forces` and :meth:`reduced` need again
        self._known: weakref.WeakKeyDictionary[Trajectory, tuple[np.ndarray, np.ndarray]] = \
            weakref.WeakKeyDictionary()
        #: G at the assembly (it varies with q: :meth:`jacobian`)
        self.G = self._G(Trajectory(self.joint_names, self.reference[None, None]), 0)[0, 0]

    @property
    def summary(self) -> str:
        """What the loops leave: rows, independent ones, coordinates."""
        R = len(self.components)
        dropped = f" ({R - self.rank} redundant, dropped)" if R > self.rank else ""
        return (f"{len(self.loops.closures)} loop(s): {R} constraint rows, {self.rank} "
                f"independent{dropped}; {self.m} coordinate(s): " + ", ".join(self.coordinate_names))

    # -- the loops' kinematics ---------------------------------------------------------------
    def residual(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``c(q)`` (N, R) and ``J(q)`` (N, R, n), all rows, at joint positions q (N, n)."""
        R, p = self._follow(q[:, None], 0, joints=True)
        return self._gap(R[:, :, 0], p[:, :, 0]), self._jacobian(R, p)[:, 0]

    def jacobian_jets(self, qs: np.ndarray, K: int) -> np.ndarray:
        """``P J^(k)``, k = 0..K (N, K+1, r, n), from q and its derivatives to order K at
        least (qs (N, >= K+1, n))."""
        return self.P @ self._jacobian(*self._follow(qs, K, joints=True))

    def _follow(self, qs: np.ndarray, K: int, joints: bool) -> tuple[np.ndarray, np.ndarray]:
        """The jets to order K of the cuts' frames (and with ``joints`` of the path's joint
        frames after them), R (N, F, K+1, 3, 3) and p (N, F, K+1, 3), root axes: the
        backend's forward pass over the paths' bodies only (the compiled kernel's where it
        runs) from q and its derivatives to order K (qs (N, >= K+1, n))."""
        if qs.shape[1] < max(K, 1) + 1:  # (a pass wants q' even for poses alone)
            qs = np.concatenate([qs, np.zeros((qs.shape[0], max(K, 1) + 1 - qs.shape[1],
                                               self.n))], axis=1)
        frames = self.sides + (self.joint_frames if joints else ())
        backend, data = backends.prepare(self.model)
        return backend.contact_frames(self.model, data, qs, frames, K)

    def _gap(self, R: np.ndarray, p: np.ndarray) -> np.ndarray:
        """``c`` (N, R): the kept rows of ``(log(R_a R_b^T); p_a - p_b)`` per loop, from the
        cuts' poses R (N, F, 3, 3), p (N, F, 3)."""
        out = []
        for i, rows in enumerate(self.rows):
            six = np.zeros((R.shape[0], 6))
            six[:, 3:] = p[:, 2 * i] - p[:, 2 * i + 1]
            if rows[0] < 3:
                six[:, :3] = lie.rotation_log(R[:, 2 * i] @ np.swapaxes(R[:, 2 * i + 1], 1, 2))
            out.append(six[:, list(rows)])
        return np.concatenate(out, axis=1)

    def _gap_rate(self, R: np.ndarray, p: np.ndarray, k: int) -> np.ndarray:
        """``c^(k) = d^(k-1) (J q')`` (N, R) from the cuts' jets R (N, F, >= k+1, 3, 3), p:
        rows ``p_a^(k) - p_b^(k)`` and ``(w_a - w_b)^(k-1)``, the spatial angular velocity
        ``skew(w) = R' R^T`` differentiated by Leibniz."""
        out = []
        for i, rows in enumerate(self.rows):
            six = np.zeros((R.shape[0], 6))
            six[:, 3:] = p[:, 2 * i, k] - p[:, 2 * i + 1, k]
            if rows[0] < 3:
                W = sum(comb(k - 1, j) * (R[:, f, j + 1] @ np.swapaxes(R[:, f, k - 1 - j], 1, 2))
                        * sign for j in range(k) for f, sign in ((2 * i, 1), (2 * i + 1, -1)))
                six[:, :3] = np.stack([W[:, 2, 1], W[:, 0, 2], W[:, 1, 0]], axis=-1)
            out.append(six[:, list(rows)])
        return np.concatenate(out, axis=1)

    def _jacobian(self, R: np.ndarray, p: np.ndarray) -> np.ndarray:
        """``J^(k)``, k = 0..K (N, K+1, R, n), all rows, from :meth:`_follow`'s jets with the
        joints (module docstring). Joint j's spatial screw is ``Ad_(R_j, p_j) X_j``: ``w_j =
        R_j X_w``, ``v_j = R_j X_v + p_j x w_j``, and a cut point p's row ``v_j - p x w_j``;
        with ``mu_j`` = +1 / -1 / 0 as j moves frame a, b or both and ``rho_j`` the sum of
        the cut points it moves (signed), a loop's columns are

            J_w = mu_j w_j,    J_v = mu_j R_j X_v + (mu_j p_j - rho_j) x w_j

        (one product of jets, Leibniz, for all the path's joints)."""
        S, K1, N = len(self.sides), R.shape[2], R.shape[0]
        Rj = np.moveaxis(R[:, S:], 1, 2)  # (N, K+1, P, 3, 3)
        X = self.model.X[self.path]
        w, u = _turned(Rj, X[:, :3]), _turned(Rj, X[:, 3:])
        if w is None:  # prismatic joints only: their screws do not turn
            w = np.zeros(Rj.shape[:-1])
        out = []
        for i, rows in enumerate(self.rows):
            mu = (self.moves[2 * i] - self.moves[2 * i + 1])[:, None]
            arm = np.swapaxes(np.tensordot(p, self.arms[i], axes=(1, 1)), 2, 3)  # (N, K+1, P, 3)
            J = np.zeros((N, K1, len(rows), self.n))
            cols = self.path[None, :]
            moment = np.array([e for e, r in enumerate(rows) if r < 3], dtype=int)
            force = np.array([e for e, r in enumerate(rows) if r >= 3], dtype=int)
            if moment.size:   # (the rows of a frame closure's orientation)
                J[:, :, moment[:, None], cols] = np.swapaxes(
                    (mu * w)[..., [rows[e] for e in moment]], 2, 3)
            J[:, :, force[:, None], cols] = np.swapaxes(
                (jets.product(arm, w, lie.cross) + (0.0 if u is None else mu * u))[
                    ..., [rows[e] - 3 for e in force]],
                2, 3)
            out.append(J)
        return np.concatenate(out, axis=2)

    def _assemble(self, guess: np.ndarray) -> np.ndarray:
        """Joint positions (n,) with the actuated ones at ``guess`` and the loops closed
        (Gauss-Newton on all rows: their rank is not known yet)."""
        q = guess.astype(float).copy()
        for _ in range(ITERATIONS * 2):
            c, J = self.residual(q[None])
            step = np.linalg.lstsq(J[0][:, self.p], c[0], rcond=RANK_TOL)[0]
            q[self.p] -= step
            if np.abs(step).max() < RESIDUAL_TOL:
                break
        c, _ = self.residual(q[None])
        if np.abs(c).max() > 1e-9:
            raise HodynError(f"the loops do not close from [guess] (residual {np.abs(c).max():.3g}"
                             " m/rad after Newton): give the passive joints' positions near an "
                             "assembly", self.loops.source)
        return q

    def _where(self, t: np.ndarray | None, s: int) -> str:
        return f"sample {s}" + ("" if t is None else f" (t = {float(t[s]):g} s)")

    def positions(self, qa: np.ndarray, t: np.ndarray | None = None) -> np.ndarray:
        """All joint positions (N, n) of the actuated joints' (N, m), every sample at once
        (module docstring); a singular or unclosable sample is named (``t``: its times)."""
        return self._closed(qa, t, np.arange(qa.shape[0]))[0]

    def _closed(self, qa: np.ndarray, t: np.ndarray | None, ids: np.ndarray,
                coarse: int = COARSE) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`positions` and ``P J_p`` there (N, r, r); ``ids``: the samples' indices in
        the file (and in ``t``), for messages.

        Warm-started along the file by halving: every ``coarse``-th sample is continued from
        the assembly, then each sample halfway between two solved ones from the one before
        it (a batch per level, log2(coarse) levels)."""
        N = qa.shape[0]
        q, c, J = np.empty((N, self.n)), np.empty((N, self.n_rows)), np.empty((N, self.n_rows, self.n))
        stride = 1 << min(coarse.bit_length() - 1, max(N - 1, 1).bit_length() - 1)
        first = np.arange(0, N, stride)
        q[first], c[first], J[first] = self._continued(
            np.broadcast_to(self.reference, (len(first), self.n)), qa[first], t, ids[first])
        while stride > 1:
            half = stride // 2
            new = np.arange(half, N, stride)
            q[new], c[new], J[new] = self._continued(q[new - half], qa[new], t, ids[new])
            stride = half
        return q, self._checked(c, J, t, ids)

    def _checked(self, c: np.ndarray, J: np.ndarray, t: np.ndarray | None,
                 samples: np.ndarray) -> np.ndarray:
        """``P J_p`` (M, r, r) of Newton's last residual c (M, R) and Jacobian J (M, R, n)
        at the samples ``samples``, once the loops are closed there and the kept rows still
        span J's."""
        bad = np.abs(c).max(axis=1) > 1e-9
        if bad.any():
            raise HodynError(f"{self._where(t, int(samples[bad.argmax()]))}: the loops cannot "
                             f"close there (residual {np.abs(c[bad.argmax()]).max():.3g})")
        # the kept rows must span J's rows everywhere (a planar mechanism's dropped row stays 0)
        PJ = self.P @ J
        self._nonsingular(PJ[:, :, self.p], t, samples)
        off = np.abs(J - self.P.T @ PJ).max(axis=(1, 2))
        bad = off > 1e-7 * np.abs(J).max(axis=(1, 2))
        if bad.any():
            raise HodynError(f"{self._where(t, int(samples[bad.argmax()]))}: the loops' "
                             "redundant rows change with the configuration (not supported)")
        return PJ[:, :, self.p]

    def _continued(self, q0: np.ndarray, qa: np.ndarray, t: np.ndarray | None,
                   samples: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The closed positions at the actuated ``qa`` (M, m) continued from the closed ``q0``
        (M, n) in steps of at most ``STEP`` (``samples``: their indices, for messages), and
        Newton's last residual and Jacobian (:meth:`_newton`)."""
        q = q0.copy()
        start = q0[:, self.a]
        steps = max(1, ceil(np.abs(qa - start).max(initial=0.0) / STEP))
        for s in range(1, steps + 1):
            q[:, self.a] = start + (qa - start) * (s / steps)
            c, J = self._newton(q, ITERATIONS if s == steps else 3, t, samples)
        return q, c, J

    def _newton(self, q: np.ndarray, iterations: int, t: np.ndarray | None,
                samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Newton's steps on q (M, n) in place until the largest is below ``RESIDUAL_TOL``,
        or until one from a kept residual ``P c`` below it converged quadratically (the step
        under ``QUADRATIC`` times the one before: the next would be below rounding; near a
        singular configuration Newton converges linearly and goes on). Returns the residual
        and Jacobian at the last step's start (what the checks and the implicit function
        theorem use, without another evaluation)."""
        before = np.inf
        for _ in range(iterations):
            c, J = self.residual(q)
            Jp, Pc = (self.P @ J)[:, :, self.p], self.P @ c[..., None]
            self._nonsingular(Jp, t, samples)
            step = np.linalg.solve(Jp, Pc)[..., 0]
            q[:, self.p] -= step
            size = np.abs(step).max(initial=0.0)
            if size < RESIDUAL_TOL or (np.abs(Pc).max(initial=0.0) < RESIDUAL_TOL
                                       and size < QUADRATIC * before):
                break
            before = size
        return c, J

    def _nonsingular(self, Jp: np.ndarray, t: np.ndarray | None, samples: np.ndarray) -> None:
        """Names the first sample where ``P J_p`` (N, r, r) is singular. Hadamard's ratio
        |det| / prod(row norms) (<= 1) screens for near-singular matrices at a fraction of an
        SVD's cost; the SVD then decides."""
        ratio = np.abs(np.linalg.det(Jp)) / np.prod(np.linalg.norm(Jp, axis=2), axis=1)
        near = ratio < SINGULAR_TOL ** 0.5
        if not near.any():
            return
        Jp, samples = Jp[near], samples[near]
        s = np.linalg.svd(Jp, compute_uv=False)
        bad = s[:, -1] < SINGULAR_TOL * s[:, 0]
        if bad.any():
            i = int(bad.argmax())
            raise HodynError(f"{self._where(t, int(samples[i]))}: a singular configuration "
                             "of the loops (the passive joints' Jacobian loses rank: "
                             f"condition {s[i, 0] / s[i, -1]:.3g})")

    def joint_rates(self, qs: np.ndarray, t: np.ndarray | None = None) -> np.ndarray:
        """q_full and its derivatives (N, D, n) of the actuated joints' (N, D, m) (module
        docstring: Newton, then the implicit function theorem order by order).

        With the times t and derivatives (D > 1), the anchors (every ``TAYLOR``-th sample and
        the last) are found so, with their derivatives, and Newton starts the others from
        the anchors' Hermite polynomials: a few steps (:meth:`_predicted`)."""
        N, D, _ = qs.shape
        full = np.zeros((N, D, self.n))
        full[:, :, self.a] = qs
        samples = np.arange(N)
        if D > 1 and t is not None and N > 2 * TAYLOR:
            coarse = np.union1d(samples[::TAYLOR], [N - 1])   # (every sample between two)
            # (every COARSE-th sample of the file still continued from the assembly)
            full[coarse, 0], Jp = self._closed(qs[coarse, 0], t, coarse, COARSE // TAYLOR)
            self._derivatives(full, coarse, Jp)
            samples = np.setdiff1d(samples, coarse)
            full[samples, 0], Jp = self._predicted(full, samples, t)
        else:
            full[:, 0], Jp = self._closed(qs[:, 0], t, samples)
        self._derivatives(full, samples, Jp)
        return full

    def _predicted(self, full: np.ndarray, samples: np.ndarray, t: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
        """The positions at ``samples`` (M, n) and ``P J_p`` there by Newton from the Hermite
        polynomial of the two anchors around each (every ``TAYLOR``-th sample and the last,
        solved in ``full`` with their derivatives). Where the nearest one's Taylor
        polynomial's last term, or its difference from the Hermite one, exceeds ``TAYLOR_TOL``
        (the samples are far apart in time),
        the actuated joints moved more than ``STEP``, or Newton went farther than ``STEP``
        from the prediction or did not close the loops, the sample is continued from its
        anchor instead (its branch)."""
        left = samples - samples % TAYLOR
        right = np.minimum(left + TAYLOR, full.shape[0] - 1)
        anchor = np.where(samples - left <= right - samples, left, right)
        h, term = t[samples] - t[anchor], np.ones(len(samples))
        guess = full[anchor, 0].copy()
        for k in range(1, full.shape[1]):
            term = term * h / k
            last = np.abs(term[:, None] * full[anchor, k]).max(axis=1)
            guess += term[:, None] * full[anchor, k]
        qa = full[samples, 0][:, self.a]
        far = (np.abs(qa - full[anchor, 0][:, self.a]).max(axis=1) > STEP) | (last > TAYLOR_TOL)
        # their Hermite polynomial (degree 2D - 1: far closer than either Taylor polynomial),
        # unless it disagrees with the nearest one's Taylor polynomial
        D, span = full.shape[1], t[right] - t[left]
        both = np.flatnonzero(span > 0)
        if both.size:
            tau = (t[samples[both]] - t[left[both]]) / span[both]
            scale = (span[both, None] ** np.arange(D))[..., None]
            ends = np.concatenate([full[left[both]] * scale, full[right[both]] * scale], 1)
            weights = (tau[:, None] ** np.arange(2 * D)) @ _hermite(D)
            hermite = np.einsum("si,sin->sn", weights, ends)
            far[both] |= np.abs(hermite - guess[both]).max(axis=1) > TAYLOR_TOL
            guess[both] = hermite
        guess[:, self.a] = qa
        M = len(samples)
        q, c, J = guess.copy(), np.zeros((M, self.n_rows)), np.zeros((M, self.n_rows, self.n))
        if not far.all():
            near = q[~far]   # (a copy: Newton moves it, then it goes back)
            c[~far], J[~far] = self._newton(near, ITERATIONS, t, samples[~far])
            q[~far] = near
            # wandered off, or not closed: continued instead (the checks then judge)
            far |= (np.abs(q - guess).max(axis=1) > STEP) | (np.abs(c @ self.P.T).max(axis=1)
                                                             > RESIDUAL_TOL ** 0.5)
        if far.any():
            q[far], c[far], J[far] = self._continued(full[anchor[far], 0], qa[far], t,
                                                     samples[far])
        return q, self._checked(c, J, t, samples)

    def _derivatives(self, full: np.ndarray, samples: np.ndarray, Jp: np.ndarray) -> None:
        """q_p^(k), k = 1..D-1, at ``samples`` of ``full`` (N, D, n), in place, from ``P J_p``
        there (M, r, r). With q_p^(k) still 0, the k-th derivative of the cuts' gap is ``c^(k)
        = J_a q_a^(k) + sum_{1<=j<k} C(k-1, j) J^(j) q^(k-j)``, the known part: the cuts'
        jets to order k (:meth:`_gap_rate`), no Jacobian's derivative needed."""
        D = full.shape[1]
        if D == 1:
            return
        inverse = np.linalg.inv(Jp)
        part = full[samples]
        for k in range(1, D):
            R, p = self._follow(part[:, : k + 1], k, joints=False)
            known = self.P @ self._gap_rate(R, p, k)[..., None]
            part[:, k, self.p] = -(inverse @ known)[..., 0]
        full[samples] = part

    def constraint_forces(self, f: np.ndarray, trajectory: Trajectory) -> np.ndarray:
        """lambda and its derivatives (N, K+1, R) (rows ``components``) from the tree's
        torques and theirs f (N, K+1, n) along the joints' ``trajectory``:
        ``J_p^T lambda = f_p``, the kept rows', ``P^T lambda_r`` (module docstring)."""
        K = f.shape[1] - 1
        Jp_inv = self._along(trajectory, K)[1]
        lam = jets.product(jets.transpose(Jp_inv), f[..., self.p, None])[..., 0]
        return lam @ self.P

    # -- the coupling's interface ------------------------------------------------------------
    def phi(self, q: np.ndarray) -> np.ndarray:
        q = np.asarray(q, dtype=float)
        return self.positions(q.reshape(-1, self.m)).reshape(q.shape[:-1] + (self.n,))

    def jacobian(self, q: np.ndarray) -> np.ndarray:
        q = np.asarray(q, dtype=float)
        full = Trajectory(self.joint_names, self.positions(q.reshape(-1, self.m))[:, None])
        return self._G(full, 0)[:, 0].reshape(q.shape[:-1] + (self.n, self.m))

    def random_coordinates(self, rng: np.random.Generator, samples: int) -> np.ndarray:
        """Within ``SPREAD`` of the assembly's actuated positions: the loops need not close
        farther (a crank-rocker's rocker cannot turn round)."""
        return self.reference[self.a] + rng.uniform(-SPREAD, SPREAD, size=(samples, self.m))

    def tangent(self, v: np.ndarray, q: np.ndarray | None = None) -> np.ndarray:
        if q is None:
            raise HodynError("closed loops: the joint rates need the configuration q")
        return (self.jacobian(q) @ v[..., None])[..., 0]

    def _along(self, full: Trajectory, K: int) -> tuple[np.ndarray, np.ndarray]:
        """``P J^(k)`` (N, K+1, r, n) and ``(P J_p)^-1`` with their derivatives to order K
        along the joints' motion (found once per motion and order: the torques, the
        constraint forces and the matrices need them again)."""
        known = self._known.get(full)
        if known is None or known[0].shape[1] <= K:
            J = self.jacobian_jets(full.derivatives, K)
            known = (J, jets.inverse(J[..., self.p]))
            self._known[full] = known
        return known[0][:, : K + 1], known[1][:, : K + 1]

    def _G(self, full: Trajectory, K: int) -> np.ndarray:
        """``G^(k)`` (N, K+1, n, m) along the joints' motion (q to order K at least)."""
        J, Jp_inv = self._along(full, K)
        X = -jets.product(Jp_inv, J[..., self.a])
        G = np.zeros(X.shape[:2] + (self.n, self.m))
        G[:, 0, self.a] = np.eye(self.m)
        G[:, :, self.p] = X
        return G

    def expand(self, trajectory: Trajectory) -> Trajectory:
        if trajectory.joint_names == self.joint_names:
            return trajectory
        if trajectory.joint_names != self.coordinate_names:
            raise HodynError(f"the trajectory's joints {trajectory.joint_names} are not the "
                             f"actuated joints {self.coordinate_names}")
        qs = self.joint_rates(trajectory.derivatives, trajectory.t)
        return Trajectory(self.joint_names, qs, trajectory.t, trajectory.wrenches,
                          trajectory.series, trajectory.base)

    def forces(self, f: np.ndarray, trajectory: Trajectory | None = None, axis: int = -1
               ) -> np.ndarray:
        if trajectory is None:
            raise HodynError("closed loops: projecting forces needs the motion")
        G = self._G(self.expand(trajectory), f.shape[1] - 1)
        return np.moveaxis(coupling.leibniz(list(np.moveaxis(G, 1, 0)), np.moveaxis(f, axis, -1)),
                           -1, axis)

    def reduced(self, M: np.ndarray, C: np.ndarray, Cbar: np.ndarray, g: np.ndarray,
                trajectory: Trajectory) -> dict[str, np.ndarray]:
        """The closed system's matrices and their first K derivatives from the tree's, M, C,
        Cbar (N, K+1, n, n) and g (N, K+1, n), along the joints' ``trajectory`` (q to order
        K + 1 at least). With ``qd = G qd_a`` and ``qdd = G qdd_a + G' qd_a``, ``tau_a = G^T
        tau_full`` is ``M_a qdd_a + C_a qd_a + g_a`` with

            M_a = G^T M G,  C_a = G^T (C G + M G'),  Cbar_a = G^T (Cbar G + M G'),  g_a = G^T g

        and ``M_a' = Cbar_a + Cbar_a^T`` holds as for the tree (the derivative of ``G^T M G``
        by Leibniz, with ``M' = Cbar + Cbar^T``); the derivatives by Leibniz over the jets."""
        K = M.shape[1] - 1
        G = self._G(self.expand(trajectory), K + 1)
        Gt, Gd = jets.transpose(G[:, : K + 1]), G[:, 1:]
        M_Gd = jets.product(M, Gd)
        return {"M": jets.product(jets.product(Gt, M), G[:, : K + 1]),
                "C": jets.product(Gt, jets.product(C, G[:, : K + 1]) + M_Gd),
                "Cbar": jets.product(Gt, jets.product(Cbar, G[:, : K + 1]) + M_Gd),
                "g": self.forces(g, trajectory)}

    # (the constant-G projections of the base class would be wrong here: the reduced
    # matrices need G' too, :meth:`reduced`; their derivatives by q are not built)
    def matrices(self, A: np.ndarray, trajectory: Trajectory | None = None) -> np.ndarray:
        raise HodynError("closed loops: the reduced matrices come from Closed.reduced")

    def tensor(self, A: np.ndarray, trajectory: Trajectory | None = None) -> np.ndarray:
        raise HodynError("closed loops: the matrices' derivatives by q are not built yet")

