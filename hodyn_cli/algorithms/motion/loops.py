"""Closed loops: the passive joints' motion from the actuated ones', the configuration-dependent
coupling :class:`Closed` (:mod:`hodyn_cli.modeling.coupling`) and the constraint forces.

The loops file (:mod:`hodyn_cli.modeling.loops`) cuts each loop at a joint: frames a and b
must coincide, ``c(q) = 0`` with rows (root axes) ``p_a - p_b`` (a point) and
``log(R_a R_b^T)`` (a frame's orientation). Its Jacobian ``J = J_a - J_b``: a frame's
angular rows ``J_w`` (the spatial Jacobian's, the screws ``Y_j`` of the joints on its path,
:mod:`hodyn_cli.algorithms.motion.jacobians`) and a point's ``J_v - skew(p) J_w``, whose time
derivatives are Leibniz's, ``J_v^(k) - sum_j C(k, j) skew(p^(j)) J_w^(k-j)``.

**Redundant rows** (a planar four-bar described by a 3-D point: one row is 0): the SVD of J at
the assembled reference, ``J = U S V^T``, keeps the r rows ``P = U_r^T`` of singular values
above ``RANK_TOL`` of the largest; the loops hold ``P c = 0`` (the rest is checked at every
sample: the row space must not turn with the configuration). ``r = n - m``: the m actuated
joints are the independent coordinates.

**Positions**: per chunk, batched over samples, Newton on ``P c(q_a, q_p) = 0`` for q_p
(``q_p <- q_p - (P J_p)^-1 P c``), continued in steps of at most ``STEP`` rad of the actuated
joints: every ``COARSE``-th sample from the reference assembly (so every chunk stays on its
branch), then by halving, each sample in between from its solved neighbour (warm-started along
the file, a batch per level).

**Derivatives** (implicit function theorem, exact): ``c(q(t)) = 0`` for all t, so
``c^(k) = d^(k-1)(J q') = sum_{j<k} C(k-1, j) J^(j) q^(k-j) = 0``; ``J^(j)`` needs q to order
j only, so order by order ``q_p^(k) = -(P J_p)^-1 P (J_a q_a^(k) + sum_{1<=j<k} C(k-1, j)
J^(j) q^(k-j))``.

**Forces**: the tree's torques of that motion, ``tau_full = M qdd + h``, are what the
actuators and the cut-joint forces lambda (on link a, by link b, at the cut: force root axes;
moment) give, ``tau_full = S^T tau_a + J^T lambda``: the passive rows ``J_p^T lambda =
tau_full,p`` give lambda (of the r kept rows, ``P^T lambda_r``: the minimum-norm one), and
``tau_a = tau_full,a - J_a^T lambda = G^T tau_full`` with ``G = [I; -J_p^-1 J_a]`` (virtual
work); the time derivatives by Leibniz over the jets of J (:mod:`hodyn_cli.core.jets`).
"""

from __future__ import annotations

import weakref
from math import ceil, comb

import numpy as np

from hodyn_cli.algorithms.dynamics.spatial import forward_pass
from hodyn_cli.algorithms.motion.kinematics import frame_pose, point_derivatives
from hodyn_cli.core import jets, lie
from hodyn_cli.core.model import LinkFrame, Model
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import HodynError
from hodyn_cli.modeling import coupling
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
#: Newton's tolerance on the kept rows' residual (m, rad) and its iterations per solve
RESIDUAL_TOL, ITERATIONS = 1e-13, 30


def close(model: Model, loops: Loops) -> Model:
    """The model with its loops closed: the actuated joints its coordinates, its coupling a
    :class:`Closed` (assembled at ``loops.guess``; errors name the loops file)."""
    from dataclasses import replace

    if (model.mimic[:, 0] >= 0).any():
        raise HodynError("a robot with <mimic> joints and loops: not supported", loops.source)
    closed = replace(model, actuated=loops.actuated)
    coupling.register(closed, Closed(closed, loops))
    return closed


class Closed(coupling.Coupling):
    """The coupling of closed loops: ``q_full = phi(q_a)`` by Newton, G(q) and its time
    derivatives from the loops' Jacobian (module docstring)."""

    active = True

    def __init__(self, model: Model, loops: Loops):
        super().__init__(model)
        self.model, self.loops = model, loops
        self.a = np.array(loops.actuated)
        self.p = np.array([i for i in range(model.n) if i not in loops.actuated])
        self.frames = [(self._frame(c.link_a, c.T_a), self._frame(c.link_b, c.T_b))
                       for c in loops.closures]
        self.rows = [c.rows for c in loops.closures]
        #: the constraint force columns' suffixes ``<loop>_<component>``
        self.components = tuple(f"{c.name}_{x}" for c in loops.closures for x in c.components)
        R = len(self.components)
        self.P = np.eye(R)
        self.reference = self._assemble(loops.guess)
        J = self._jets(self.reference[None, None], 0)[0][0, 0]
        U, s, _ = np.linalg.svd(J)
        r = int((s > RANK_TOL * max(s[0], 1e-300)).sum()) if s.size else 0
        self.P = U[:, :r].T
        self.rank = r
        if r == 0:
            raise HodynError("the loops constrain no joint at the assembly (their Jacobian is "
                             "0): nothing to close", loops.source)
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
        #: ``P J^(k)`` along the joint motions :meth:`expand` made (their last IFT order's):
        #: what :meth:`forces` and :meth:`constraint_forces` need again
        self._known: weakref.WeakKeyDictionary[Trajectory, np.ndarray] = \
            weakref.WeakKeyDictionary()
        #: G at the assembly (it varies with q: :meth:`jacobian`)
        self.G = self._G(Trajectory(self.joint_names, self.reference[None, None]), 0)[0, 0]

    def _frame(self, link: str, T: np.ndarray) -> LinkFrame:
        frame = self.model.links[link]
        return LinkFrame(frame.body, frame.T @ T)

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
        J, kin = self._jets(q[:, None], 0)
        c = []
        for (fa, fb), rows in zip(self.frames, self.rows, strict=True):
            (Ra, pa), (Rb, pb) = (self._pose(kin, f, q.shape[0]) for f in (fa, fb))
            c.append(np.concatenate([lie.rotation_log(Ra @ np.swapaxes(Rb, 1, 2)),
                                     pa - pb], axis=-1)[:, rows])
        return np.concatenate(c, axis=1), J[:, 0]

    @staticmethod
    def _pose(kin, frame: LinkFrame, N: int) -> tuple[np.ndarray, np.ndarray]:
        if frame.body < 0:  # on the root
            return (np.broadcast_to(frame.T[:3, :3], (N, 3, 3)),
                    np.broadcast_to(frame.T[:3, 3], (N, 3)))
        return frame_pose(kin, frame)

    def jacobian_jets(self, qs: np.ndarray, K: int) -> np.ndarray:
        """``P J^(k)``, k = 0..K (N, K+1, r, n), from q and its derivatives to order K at
        least (qs (N, >= K+1, n))."""
        return self.P @ self._jets(qs, K)[0]

    def _jets(self, qs: np.ndarray, K: int):
        """``J^(k)``, k = 0..K (N, K+1, R, n), all rows, and the forward pass."""
        N = qs.shape[0]
        padded = np.zeros((N, K + 2, self.n))
        padded[:, : K + 1] = qs[:, : K + 1]   # q^(K+1) moves only V^(K), which is not used
        kin = forward_pass(self.model, padded, K)
        out = []
        for (fa, fb), rows in zip(self.frames, self.rows, strict=True):
            J = np.zeros((N, K + 1, 6, self.n))
            for frame, sign in ((fa, 1.0), (fb, -1.0)):
                if frame.body < 0:  # on the root: at rest
                    continue
                Js = np.zeros((N, K + 1, 6, self.n))  # the spatial Jacobian: the path's screws
                for j in np.flatnonzero(self.model.ancestry[:, frame.body]):
                    Js[..., j] = kin.Y[j][:, : K + 1]
                _, p0 = frame_pose(kin, frame)
                p = p0[:, None] if K == 0 else np.concatenate(
                    [p0[:, None], point_derivatives(p0, kin.V[frame.body][:, :K])], axis=1)
                Jw = Js[:, :, :3]
                J[:, :, :3] += sign * Jw
                J[:, :, 3:] += sign * (Js[:, :, 3:] - jets.product(lie.skew(p), Jw))
            out.append(J[:, :, list(rows)])
        return np.concatenate(out, axis=2), kin

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
        (module docstring); a singular or unclosable sample is named (``t``: its times).

        Warm-started along the file by halving: every ``COARSE``-th sample is continued from
        the assembly, then each sample halfway between two solved ones from the one before
        it (a batch per level, log2(COARSE) levels)."""
        N = qa.shape[0]
        q = np.empty((N, self.n))
        stride = 1 << min(COARSE.bit_length() - 1, max(N - 1, 1).bit_length() - 1)
        first = np.arange(0, N, stride)
        q[first] = self._continued(np.broadcast_to(self.reference, (len(first), self.n)),
                                   qa[first], t, first)
        while stride > 1:
            half = stride // 2
            new = np.arange(half, N, stride)
            q[new] = self._continued(q[new - half], qa[new], t, new)
            stride = half
        c, J = self.residual(q)
        self._nonsingular((self.P @ J)[:, :, self.p], t, np.arange(N))
        bad = np.abs(c).max(axis=1) > 1e-9
        if bad.any():
            raise HodynError(f"{self._where(t, int(bad.argmax()))}: the loops cannot close there "
                             f"(residual {np.abs(c[bad.argmax()]).max():.3g})")
        # the kept rows must span J's rows everywhere (a planar mechanism's dropped row stays 0)
        off = np.abs(J - self.P.T @ (self.P @ J)).max(axis=(1, 2))
        bad = off > 1e-7 * np.abs(J).max(axis=(1, 2))
        if bad.any():
            raise HodynError(f"{self._where(t, int(bad.argmax()))}: the loops' redundant rows "
                             "change with the configuration (not supported)")
        return q

    def _continued(self, q0: np.ndarray, qa: np.ndarray, t: np.ndarray | None,
                   samples: np.ndarray) -> np.ndarray:
        """The closed positions at the actuated ``qa`` (M, m) continued from the closed ``q0``
        (M, n) in steps of at most ``STEP`` (``samples``: their indices, for messages)."""
        q = q0.copy()
        start = q0[:, self.a]
        steps = max(1, ceil(np.abs(qa - start).max(initial=0.0) / STEP))
        for s in range(1, steps + 1):
            q[:, self.a] = start + (qa - start) * (s / steps)
            self._newton(q, ITERATIONS if s == steps else 3, t, samples)
        return q

    def _newton(self, q: np.ndarray, iterations: int, t: np.ndarray | None,
                samples: np.ndarray) -> None:
        for _ in range(iterations):
            c, J = self.residual(q)
            Jp = (self.P @ J)[:, :, self.p]
            # Hadamard's ratio |det| / prod(row norms) (<= 1) screens for near-singular
            # matrices at a fraction of an SVD's cost; the SVD then decides
            ratio = np.abs(np.linalg.det(Jp)) / np.prod(np.linalg.norm(Jp, axis=2), axis=1)
            near = ratio < SINGULAR_TOL ** 0.5
            if near.any():
                self._nonsingular(Jp[near], t, samples[near])
            step = np.linalg.solve(Jp, (self.P @ c[..., None]))[..., 0]
            q[:, self.p] -= step
            if np.abs(step).max() < RESIDUAL_TOL:
                return

    def _nonsingular(self, Jp: np.ndarray, t: np.ndarray | None, samples: np.ndarray) -> None:
        s = np.linalg.svd(Jp, compute_uv=False)
        bad = s[:, -1] < SINGULAR_TOL * s[:, 0]
        if bad.any():
            i = int(bad.argmax())
            raise HodynError(f"{self._where(t, int(samples[i]))}: a singular configuration "
                             "of the loops (the passive joints' Jacobian loses rank: "
                             f"condition {s[i, 0] / s[i, -1]:.3g})")

    def joint_rates(self, qs: np.ndarray, t: np.ndarray | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
        """q_full and its derivatives (N, D, n) of the actuated joints' (N, D, m) (module
        docstring: Newton, then the implicit function theorem order by order), and ``P
        J^(k)`` to order D - 2 along them (N, D-1, r, n; order 0 where D = 1)."""
        N, D, _ = qs.shape
        full = np.zeros((N, D, self.n))
        full[:, :, self.a] = qs
        full[:, 0] = self.positions(qs[:, 0], t)
        J = self.jacobian_jets(full, 0)
        for k in range(1, D):
            if k > 1:
                J = self.jacobian_jets(full, k - 1)
            known = np.zeros((N, J.shape[2]))
            for j in range(k):                   # q_p^(k) still 0 in the j = 0 term
                known += comb(k - 1, j) * (J[:, j] @ full[:, k - j, :, None])[..., 0]
            full[:, k, self.p] = -np.linalg.solve(J[:, 0][:, :, self.p], known[..., None])[..., 0]
        return full, J

    def constraint_forces(self, f: np.ndarray, trajectory: Trajectory) -> np.ndarray:
        """lambda and its derivatives (N, K+1, R) (rows ``components``) from the tree's
        torques and theirs f (N, K+1, n) along the joints' ``trajectory``:
        ``J_p^T lambda = f_p``, the kept rows', ``P^T lambda_r`` (module docstring)."""
        K = f.shape[1] - 1
        Jp_inv = jets.inverse(self._along(trajectory, K)[..., self.p])
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

    def _along(self, full: Trajectory, K: int) -> np.ndarray:
        """``P J^(k)``, k = 0..K, along the joints' motion (known from :meth:`expand`)."""
        known = self._known.get(full)
        if known is not None and known.shape[1] > K:
            return known[:, : K + 1]
        return self.jacobian_jets(full.derivatives, K)

    def _G(self, full: Trajectory, K: int) -> np.ndarray:
        """``G^(k)`` (N, K+1, n, m) along the joints' motion (q to order K at least)."""
        J = self._along(full, K)
        X = -jets.product(jets.inverse(J[..., self.p]), J[..., self.a])
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
        qs, J = self.joint_rates(trajectory.derivatives, trajectory.t)
        full = Trajectory(self.joint_names, qs, trajectory.t, trajectory.wrenches,
                          trajectory.series, trajectory.base)
        self._known[full] = J
        return full

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

