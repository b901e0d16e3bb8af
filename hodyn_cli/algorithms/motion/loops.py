"""Closed loops: the passive joints' motion from the actuated ones', the configuration-dependent
coupling :class:`Closed` (:mod:`hodyn_cli.core.coupling`) and the constraint forces.

The loops file (:mod:`hodyn_cli.modeling.loops`) cuts each loop at a joint: frames a and b
must coincide, ``c(q) = 0`` with rows (root axes) ``p_a - p_b`` (a point) and
``log(R_a R_b^T)`` (a frame's orientation). Its Jacobian ``J = J_a - J_b``: a frame's
angular rows ``J_w`` (the spatial Jacobian's, the screws ``Y_j`` of the joints on its path,
:mod:`hodyn_cli.algorithms.motion.jacobians`) and a point's ``J_v - skew(p) J_w``, whose time
derivatives are Leibniz's, ``J_v^(k) - sum_j C(k, j) skew(p^(j)) J_w^(k-j)``.

**Kinematics** come from the backend's ``contact_frames`` (a forward pass over the bodies on
the cuts' paths only): the jets of the cuts' frames and of the path joints' body frames, in
root axes; the screws and J follow in a few batched products (:meth:`Closed._jacobian`). This
numpy code is the reference: where the compiled kernel runs, its loop entry points
(``csrc/loops.c``: the gap, its rates and J's jets per sample, Newton, the starts between the
anchors, the implicit function theorem's orders, :func:`project`) do the same per sample.

**Redundant rows** (a planar four-bar described by a 3-D point: one row is 0): the SVD of J at
the assembled reference, ``J = U S V^T``, keeps the r rows ``P = U_r^T`` of singular values
above ``RANK_TOL`` of the largest; the loops hold ``P c = 0`` (the rest is checked at every
sample: the row space must not turn with the configuration). ``r = n - m``: the m actuated
joints are the independent coordinates.

**Positions**: per chunk, batched over samples, Newton on ``P c(q_a, q_p) = 0`` for q_p (``q_p
<- q_p - (P J_p)^-1 P c``), continued in steps of at most ``STEP`` of the actuated joints
(each in its unit, :class:`Tolerances`: rad, or the loops' length for a prismatic one) on the
loops (``closing``: those that move one side of a cut and not the other, ``mu_j != 0``
in :meth:`Closed._jacobian`; a joint above a loop moves all of it rigidly, ``c`` turns with
it and stays 0, and one off its paths does not move it: their moves take no step, however
large; a hip at 1e6 rad took 5 million): every ``COARSE``-th sample from the reference
assembly (so every chunk stays on its branch), then by halving, each sample in between from
its solved neighbour (warm-started along the file, a batch per level). With the times and
derivatives (a trajectory), only the anchors go so, every ``TAYLOR``-th sample and the last,
and their derivatives follow in each level's pass (a level's samples then start from their
neighbour's Taylor polynomial, where its last term is below ``TAYLOR_TOL``, rather than from
its positions); the samples between two anchors start from the two-point Hermite polynomial
of their q_p and derivatives (degree 2D - 1) and Newton converges in a few steps (a sample
too far from its nearest anchor in time or in the actuated joints on the loops, where that
anchor's Taylor polynomial ``sum_k q_p^(k)(t_0) (t - t_0)^k / k!`` disagrees with the
Hermite one, or that Newton moves farther than ``STEP``, is continued from the anchor
instead; the polynomials' terms are judged on the joints on the loops alone,
:attr:`Closed.on_loops`: Newton starts the other actuated joints at their own positions; every
move and term in its joint's unit, as the steps).

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
work); the time derivatives by Leibniz over the jets of J, order by order (:func:`project`).
"""

from __future__ import annotations

from dataclasses import dataclass
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

__all__ = ["Closed", "Looped", "close", "RANK_TOL", "SINGULAR_TOL", "STEP"]

#: singular values of J below this share of the largest: redundant rows
RANK_TOL = 1e-9
#: (P J_p)'s smallest singular value below this share of its largest: a singular configuration
SINGULAR_TOL = 1e-8
#: the largest step of the actuated joints in the continuation from the reference, in their
#: units (:class:`Tolerances`: rad, or the loops' length for a prismatic joint)
STEP = 0.2
#: the base parameters' random actuated positions: within this of the assembly's (units as STEP)
SPREAD = 0.5
#: every COARSE-th sample is continued from the assembly, the others from their neighbours
COARSE = 64
#: with derivatives: every TAYLOR-th sample is found first, the others from their polynomials
TAYLOR = 8
#: ... where the nearest one's Taylor polynomial's last term and its difference from the
#: Hermite polynomial are below this (units as STEP)
TAYLOR_TOL = 0.05
#: Newton's tolerance on its step, per joint in its own unit (rad; a prismatic joint's in the
#: loops' length, :class:`Tolerances`), and its iterations per solve
STEP_TOL, ITERATIONS = 1e-13, 30
#: Newton's tolerance on the kept rows' residual, per metre of the loops' length (m per m:
#: a joint error in rad, :func:`_length`)
RESIDUAL_TOL = 1e-13
#: the largest residual (m, rad, times the loops' length below 1 m) of loops that close
CLOSED_TOL = 1e-9
#: Newton from a prediction that left the kept rows' residual above this times the loops'
#: length (a joint error of 3e-7 rad) did not converge: continued instead (:meth:`Closed._predicted`)
OPEN_TOL = RESIDUAL_TOL ** 0.5
#: a Newton step below this share of the one before: quadratic convergence (see _newton)
QUADRATIC = 1e-3
#: Newton's iterations in each step of a continuation but its last (that one: ITERATIONS)
STEP_ITERATIONS = 3


def _turned(R: np.ndarray, x: np.ndarray) -> np.ndarray | None:
    """``R_j x_j`` (..., P, 3) of rotations R (..., P, 3, 3) and vectors x (P, 3), column by
    column (numpy's matmul of 3 x 3 stacks costs ~10x as much), over the columns some x has
    (a joint axis along a body axis: one); None where every x is 0 (revolute joints' X_v)."""
    used = np.flatnonzero(np.abs(x).max(axis=0) > 0)
    if used.size == 0:
        return None
    return sum(R[..., c] * x[:, c, None] for c in used)


def _length(J: np.ndarray, prismatic: np.ndarray) -> float:
    """The loops' length (m, at most 1): the largest singular value of J's (R, n) columns of
    the joints that turn (not ``prismatic`` (n,) bool), the lever (m per rad) of those joints
    on the cut points. A residual of c (m) is a joint error of c / length (rad), so Newton's
    residual tolerances are times it: absolute ones let a linkage of a few mm stop 1e-9 rad
    from its solution, and its derivatives (the implicit function theorem at those q) then
    failed ``validate``'s differences by 1e-8 (tests/test_loops_scale.py). A prismatic
    joint's column is no lever (m per m, 1 whatever the size): counted, it made every
    slider-crank 1 m long (tests/test_loops_mixed.py). Not above 1: a frame closure's
    orientation rows (rad) share the kept rows P with its point rows, and a residual
    tolerance times 1 km would loosen its angles to 1e-10 rad; above 1 m Newton's step
    tolerance (joint units, whatever the size) ends its iterations; 1 where no joint turns
    (nothing sets a size).

    >>> _length(np.array([[0.0, 0.003], [0.004, 0.0]]), np.array([False, False]))
    0.004
    >>> _length(np.array([[2.0, 0.0]]), np.array([False, False]))
    1.0
    >>> _length(np.array([[0.0, 0.003], [1.0, 0.0]]), np.array([True, False]))
    0.003
    """
    turning = J[:, ~prismatic]
    return min(1.0, float(np.linalg.norm(turning, 2))) if turning.size else 1.0


def _largest(x: np.ndarray) -> np.ndarray:
    """``max_j |x_ij|`` (M,) of x (M, k) with few columns, column by column (numpy's
    ``max(axis=1)`` over short rows costs ~20x as much: ~1.6 ms for 17 500 rows of 4, the
    closed robot's checks between the anchors); 0 where x has no column."""
    if not x.shape[1]:
        return np.zeros(x.shape[0])
    out = np.abs(x[:, 0])
    for j in range(1, x.shape[1]):
        np.maximum(out, np.abs(x[:, j]), out=out)
    return out


def _kept_rows(P: np.ndarray, J: np.ndarray) -> np.ndarray:
    """``P J`` (..., r, n) of the kept rows P (r, R) and J (..., R, n), as one 2-D product
    (numpy's matmul of a stack of small matrices costs ~50x as much: 3 ms for 20 000 samples'
    constraint forces)."""
    return np.moveaxis(np.tensordot(J, P, axes=(-2, 1)), -1, -2)


def _taylor(full: np.ndarray, rows: np.ndarray, h: np.ndarray, counted: np.ndarray,
            unit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The Taylor polynomials ``sum_k q^(k) h^k / k!`` (M, n) of the rows ``rows`` (M,) of
    ``full`` (N, D, n) at their steps h (M,), and their last terms' largest (M,) over the
    joints ``counted`` (n,) bool (:attr:`Closed.on_loops`), each in its ``unit`` (n,)
    (:class:`Tolerances`) (einsum: a tenth of a broadcast product's and sum's cost on (M, D,
    n))."""
    D = full.shape[1]
    powers = np.vander(h, D, increasing=True) / _factorials(D)
    at = full[rows]
    return np.einsum("sk,skn->sn", powers, at), \
        _largest(powers[:, -1:] * at[:, -1][:, counted] / unit[counted])


@cache
def _factorials(D: int) -> np.ndarray:
    """``k!``, k = 0..D-1."""
    return np.array([factorial(k) for k in range(D)], dtype=float)


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


class Tolerances(NamedTuple):
    """Newton's tolerances for loops of a given length (:func:`_length`): its step is
    measured in each joint's ``unit`` (n,) (1: rad; the loops' length where the joint is
    prismatic, its step in m) and ends below ``step`` (``STEP_TOL``: per joint, STEP_TOL rad
    or STEP_TOL x length m); the continuation's steps (``STEP``) and the predictions' checks
    (``TAYLOR_TOL``) read the same units (absolute, a 31 um slider's moves and terms never
    counted: tests/test_loops_mixed.py); the kept rows' residual's (m: ``RESIDUAL_TOL`` times the
    length) and the residual above which a Newton from a prediction did not converge (m:
    ``OPEN_TOL`` times the length). One step tolerance for every joint never let the step
    test end a sub-millimetre linkage's Newton where it mixes revolute and prismatic joints:
    times the length (3.5e-18 rad at 35 um: below the angles' rounding) the revolute joints
    never stopped, absolute (1e-13 m) the prismatic ones stopped 3e-9 of the size short
    (tests/test_loops_mixed.py); ``sqrt`` of the residual's judged convergence in units of
    sqrt(m)."""

    step: float
    unit: np.ndarray
    residual: float
    open: float

    @classmethod
    def of(cls, length: float, prismatic: np.ndarray) -> Tolerances:
        """The tolerances of loops ``length`` long whose joints are ``prismatic`` (n,) bool
        where so.

        >>> tol = Tolerances.of(3.5e-5, np.array([False, True]))
        >>> tol.step, tol.unit.tolist(), f"{tol.residual:.3g}", f"{tol.open:.3g}"
        (1e-13, [1.0, 3.5e-05], '3.5e-18', '1.11e-11')
        """
        return cls(STEP_TOL, np.where(prismatic, length, 1.0), RESIDUAL_TOL * length,
                   OPEN_TOL * length)


class Cuts(NamedTuple):
    """The loops as the compiled entry points read them (``csrc/loops.c``): the cuts' sides
    (a, b of each loop) by body (-1: the root) and pose in it (S, 4, 4), the path joints,
    ``moves`` (S, P), each constraint row's loop and axis (0..2 the orientation's, 3..5 the
    point's), the kept rows P (r, R), the passive and actuated joints, and ``closing`` (m,)
    uint8: 1 where an actuated joint moves a loop's closure (the continuation's steps count
    these alone: :attr:`Closed.closing`)."""

    side_body: np.ndarray
    T: np.ndarray
    path: np.ndarray
    moves: np.ndarray
    row_loop: np.ndarray
    row_axis: np.ndarray
    P: np.ndarray
    passive: np.ndarray
    active: np.ndarray
    closing: np.ndarray


def project(PJ: np.ndarray, f: np.ndarray, a: np.ndarray, p: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray]:
    """``lambda_r`` (N, K+1, C, r) and ``tau_a`` (N, K+1, C, m) of the tree's forces and their
    derivatives f (N, K+1, C, n) from ``P J``'s jets (N, >= K+1, r, n), order by order (Leibniz
    on ``(P J)^T lambda_r = f``, module docstring):

        (P J_p)^T lambda_r^(k) = f_p^(k) - sum_{j>=1} C(k, j) (P J_p^(j))^T lambda_r^(k-j)
        tau_a^(k) = f_a^(k) - sum_j C(k, j) (P J_a^(j))^T lambda_r^(k-j)

    (``tau_a = G^T f`` with ``G = [I; -(P J_p)^-1 P J_a]``: one solve per order, no jet of
    the inverse)."""
    K1 = f.shape[1]
    Jp, Ja = PJ[:, :K1, :, p], PJ[:, :K1, :, a]
    lam = np.empty(f.shape[:-1] + (len(p),))
    tau = np.empty(f.shape[:-1] + (len(a),))
    for k in range(K1):
        b = f[:, k][..., p]
        for j in range(1, k + 1):
            b = b - comb(k, j) * (lam[:, k - j] @ Jp[:, j])
        lam[:, k] = np.swapaxes(np.linalg.solve(jets.transpose(Jp[:, 0]), jets.transpose(b)),
                                1, 2)
        tau[:, k] = f[:, k][..., a] - sum(comb(k, j) * (lam[:, k - j] @ Ja[:, j])
                                          for j in range(k + 1))
    return lam, tau


class Followed(NamedTuple):
    """A frame whose jets the backend's ``contact_frames`` follows: a link and a pose (4 x 4)
    in it (a cut's frame, or a joint's body frame)."""

    link: str
    T: np.ndarray


class KnownJacobians(NamedTuple):
    """``P J^(k)``'s jets (N, K+1, r, n) found along the joint derivatives ``along``."""

    along: np.ndarray
    PJ: np.ndarray


@dataclass(frozen=True, eq=False)
class Looped(Trajectory):
    """A closed robot's joint motion (:meth:`Closed.expand`), with ``P J``'s jets where the
    compiled kernel found them on the way: the torques, the constraint forces and the
    reduced matrices of this one request need them again (a trajectory made from it with
    other derivatives, ``dataclasses.replace``, finds them anew: they hold for ``along``
    alone)."""

    jacobians: KnownJacobians | None = None


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
        #: (n,) bool: the prismatic joints (their positions in m, the others' in rad)
        self.prismatic = np.array([kind == "prismatic" for kind in model.joint_types])
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
        #: (m,) bool: the actuated joints that move some loop's side a and not its b or the
        #: other way round (``mu_j != 0``, :meth:`_jacobian`): they alone move the closure;
        #: the others (above the loops, moving both sides, or off their paths) leave ``c =
        #: 0``, so the continuation's steps count these alone (module docstring)
        moving = (self.moves[0::2] != self.moves[1::2]).any(axis=0)
        self.closing = np.isin(self.a, self.path[moving])
        #: per loop, ``arm_j = mu_j p_j - rho_j`` (:meth:`_jacobian`) as weights (P, F) of the
        #: followed frames' origins (the cuts' then the path joints')
        self.arms = []
        for i in range(len(loops.closures)):
            weights = np.zeros((len(self.path), len(self.sides) + len(self.path)))
            weights[:, 2 * i], weights[:, 2 * i + 1] = -self.moves[2 * i], self.moves[2 * i + 1]
            weights[:, len(self.sides):] = np.diag(self.moves[2 * i] - self.moves[2 * i + 1])
            self.arms.append(weights)
        self.rows = [c.rows for c in loops.closures]
        self.row_loop = np.array([i for i, rows in enumerate(self.rows) for _ in rows],
                                 dtype=np.int32)
        self.row_axis = np.array([r for rows in self.rows for r in rows], dtype=np.int32)
        #: the constraint force columns' suffixes ``<loop>_<component>``
        self.components = tuple(f"{c.name}_{x}" for c in loops.closures for x in c.components)
        self.n_rows = R = len(self.components)
        self.P = np.eye(R)
        self.cuts = self._cuts()
        self.reference = self._assemble(loops.guess)
        J = self.residual(self.reference[None])[1][0]
        #: the loops' length (m, at most 1: :func:`_length`) and Newton's tolerances for them
        self.length = _length(J, self.prismatic)
        self.tol = Tolerances.of(self.length, self.prismatic)
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
        self.cuts = self._cuts()
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
        #: G at the assembly (it varies with q: :meth:`jacobian`)
        self.G = self._G(Trajectory(self.joint_names, self.reference[None, None]), 0)[0, 0]

    def __getstate__(self) -> dict:
        """Pickled (the model carries it to a Dask worker or a process pool) without its
        backend Data (the compiled kernel's struct: this process's pointers)."""
        state = self.__dict__.copy()
        state.pop("_data", None)
        return state

    @property
    def on_loops(self) -> np.ndarray:
        """(n,) bool: the joints on the loops, the passive ones and the actuated ones that
        move a closure (:attr:`closing`). Newton's start between samples is the passive
        joints' prediction (the actuated ones start at their own positions), so whether a
        prediction holds (its Taylor polynomial's last term, its Hermite polynomial's
        difference from it) is judged on these alone: a joint above the loops or off their
        paths swinging fast sent its samples back to their anchors (the compiled kernel
        counts the same joints from ``closing``)."""
        counted = np.ones(self.n, bool)
        counted[self.a[~self.closing]] = False
        return counted

    def _cuts(self) -> Cuts:
        """The loops for the compiled entry points, with the kept rows P as they are now."""
        links = self.model.links
        return Cuts(np.array([links[f.link].body for f in self.sides], dtype=np.int32),
                    np.array([links[f.link].T @ f.T for f in self.sides]),
                    self.path.astype(np.int32), np.ascontiguousarray(self.moves),
                    self.row_loop, self.row_axis, np.ascontiguousarray(self.P),
                    self.p.astype(np.int32), self.a.astype(np.int32),
                    self.closing.astype(np.uint8))

    def _backend_data(self):
        """The backend that runs and its Data for the model, made on the first call of the
        loops' kinematics and kept with this coupling (they run several times per chunk: a
        Data per call cost a closed robot's stream 10 %); made again for another backend."""
        backend, data = backends.prepare(self.model, self.__dict__.get("_data"))
        self._data = data
        return backend, data

    def _kernel(self, order: int = 0):
        """The backend whose compiled loop entry points run this model at ``order`` (None:
        the numpy code here, the reference)."""
        backend = backends.current()
        runs = getattr(backend, "loops_run", None)   # (the compiled backend's alone)
        return backend if runs is not None and runs(self.model, order) else None

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
        kernel = self._kernel()
        if kernel is not None:
            c, J = kernel.loop_kinematics(self.model, q[:, None], self.cuts, 0, 0,
                                          data=self._backend_data()[1])
            return c, J[:, 0]
        R, p = self._follow(q[:, None], 0, joints=True)
        return self._gap(R[:, :, 0], p[:, :, 0]), self._jacobian(R, p)[:, 0]

    def jacobian_jets(self, qs: np.ndarray, K: int) -> np.ndarray:
        """``P J^(k)``, k = 0..K (N, K+1, r, n), from q and its derivatives to order K at
        least (qs (N, >= K+1, n))."""
        kernel = self._kernel(K)
        if kernel is not None:
            return _kept_rows(self.P, kernel.loop_kinematics(
                self.model, qs, self.cuts, 0, K, gap=False, data=self._backend_data()[1])[1])
        return _kept_rows(self.P, self._jacobian(*self._follow(qs, K, joints=True)))

    def _follow(self, qs: np.ndarray, K: int, joints: bool) -> tuple[np.ndarray, np.ndarray]:
        """The jets to order K of the cuts' frames (and with ``joints`` of the path's joint
        frames after them), R (N, F, K+1, 3, 3) and p (N, F, K+1, 3), root axes: the
        backend's forward pass over the paths' bodies only (the compiled kernel's where it
        runs) from q and its derivatives to order K (qs (N, >= K+1, n))."""
        if qs.shape[1] < max(K, 1) + 1:  # (a pass wants q' even for poses alone)
            qs = np.concatenate([qs, np.zeros((qs.shape[0], max(K, 1) + 1 - qs.shape[1],
                                               self.n))], axis=1)
        frames = self.sides + (self.joint_frames if joints else ())
        backend, data = self._backend_data()
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
            # (each joint's step in its unit, as Newton's: :class:`Tolerances`)
            unit = Tolerances.of(_length(J[0], self.prismatic), self.prismatic).unit
            if np.abs(step / unit[self.p]).max() < STEP_TOL:
                break
        c, J = self.residual(q[None])
        if np.abs(c).max() > CLOSED_TOL * _length(J[0], self.prismatic):
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
                coarse: int = COARSE, rates: tuple[np.ndarray, np.ndarray] | None = None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`positions`, ``P J_p`` there (N, r, r) and where the derivatives were found
        with them (N,) bool; ``ids``: the samples' indices in the file (and in ``t``), for
        messages, and their rows in ``rates`` (full, jacobians: :meth:`_newton`'s, the
        implicit function theorem in the pass of each sample's last Newton).

        Warm-started along the file by halving: every ``coarse``-th sample is continued from
        the assembly, then each sample halfway between two solved ones from the one before
        it (a batch per level, log2(coarse) levels): from its Taylor polynomial where that
        one's derivatives were found and its last term is below ``TAYLOR_TOL`` (Newton's
        steps from there are about half those from its positions: ~0.05 us a sample of the
        leg's file at order 2), else from its positions. The compiled kernel runs the levels
        in one call (``loop_closed``: the same steps, the same numbers bit for bit; their
        Python and kernel calls one by one took ~0.07 us a sample of the leg's file), unless
        some step meets a near-singular ``P J_p``: then step by step, where numpy's Newton
        decides (:meth:`_newton`)."""
        kernel = self._kernel()
        if kernel is not None and (rates is None or self._kernel(rates[0].shape[1] - 1)):
            found = kernel.loop_closed(self.model, qa, self.cuts, self.reference, ids, t,
                                       coarse, STEP, ITERATIONS, STEP_ITERATIONS, self.tol,
                                       QUADRATIC, SINGULAR_TOL ** 0.5, TAYLOR_TOL, rates,
                                       data=self._backend_data()[1])
            if found is not None:
                q, c, PJ, off, rated = found
                return q, self._checked(c, PJ, off, t, ids), rated
        N = qa.shape[0]
        q, c, PJ, off = (np.empty((N, self.n)), np.empty((N, self.n_rows)),
                         np.empty((N, self.rank, self.n)), np.empty(N))
        rated = np.empty(N, bool)
        stride = 1 << min(coarse.bit_length() - 1, max(N - 1, 1).bit_length() - 1)
        level = np.arange(0, N, stride)
        start = np.broadcast_to(self.reference, (len(level), self.n))
        while True:
            q[level], c[level], PJ[level], off[level], rated[level] = self._continued(
                start, qa[level], t, ids[level], rates)
            if stride == 1:
                break
            half = stride // 2
            level = np.arange(half, N, stride)
            before = level - half
            start, stride = q[before], half
            if rates is not None and t is not None:
                guess, last = _taylor(rates[0], ids[before], t[ids[level]] - t[ids[before]],
                                      self.on_loops, self.tol.unit)
                near = rated[before] & (last <= TAYLOR_TOL)
                start[near] = guess[near]
        return q, self._checked(c, PJ, off, t, ids), rated

    def _kept(self, J: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``P J`` (M, r, n) of Jacobians J (M, R, n), and how far J's rows leave the kept
        rows' span, ``max |J - P^T P J| / max |J|`` (M,) (0 where J is 0)."""
        PJ = self.P @ J
        big = np.abs(J).max(axis=(1, 2))
        off = np.abs(J - self.P.T @ PJ).max(axis=(1, 2))
        return PJ, np.divide(off, big, out=np.zeros_like(off), where=big > 0)

    def _checked(self, c: np.ndarray, PJ: np.ndarray, off: np.ndarray, t: np.ndarray | None,
                 samples: np.ndarray) -> np.ndarray:
        """``P J_p`` (M, r, r) of Newton's residual c (M, R) and ``P J`` and J's rows off
        its span (:meth:`_kept`) at the samples ``samples``, once the loops are closed there
        and the kept rows still span J's (Newton screened ``P J_p`` at every step:
        :meth:`_nonsingular`)."""
        bad = _largest(c) > CLOSED_TOL * self.length
        if bad.any():
            raise HodynError(f"{self._where(t, int(samples[bad.argmax()]))}: the loops cannot "
                             f"close there (residual {np.abs(c[bad.argmax()]).max():.3g})")
        # the kept rows must span J's rows everywhere (a planar mechanism's dropped row stays 0)
        bad = off > 1e-7
        if bad.any():
            raise HodynError(f"{self._where(t, int(samples[bad.argmax()]))}: the loops' "
                             "redundant rows change with the configuration (not supported)")
        return PJ[:, :, self.p]

    def _continued(self, q0: np.ndarray, qa: np.ndarray, t: np.ndarray | None,
                   samples: np.ndarray, rates: tuple[np.ndarray, np.ndarray] | None = None
                   ) -> tuple[np.ndarray, ...]:
        """The closed positions at the actuated ``qa`` (M, m) continued from the closed ``q0``
        (M, n) in steps of at most ``STEP`` of the joints that move the closure
        (:attr:`closing`, each in its unit, :class:`Tolerances`; the others go along in as
        many steps) (``samples``: their
        indices, for messages), and
        Newton's last residual, P J, J's rows off its span and where the derivatives were
        found with them (:meth:`_newton`: ``rates`` in the last step's pass)."""
        q = q0.copy()
        start = q0[:, self.a]
        moves = np.abs(qa - start)[:, self.closing] / self.tol.unit[self.a[self.closing]]
        steps = max(1, ceil(moves.max(initial=0.0) / STEP))
        for s in range(1, steps + 1):
            q[:, self.a] = start + (qa - start) * (s / steps)
            last = s == steps
            c, PJ, off, rated = self._newton(q, ITERATIONS if last else STEP_ITERATIONS, t, samples,
                                             rates if last else None)
        return q, c, PJ, off, rated

    def _newton(self, q: np.ndarray, iterations: int, t: np.ndarray | None,
                samples: np.ndarray, rates: tuple[np.ndarray, np.ndarray] | None = None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Newton's steps on q (M, n) in place until the largest, each passive joint's in its
        unit, is below ``tol.step`` (:class:`Tolerances`), or until one from a kept residual
        ``P c`` below ``tol.residual`` converged quadratically (the step under ``QUADRATIC``
        times the one before: the next would be below rounding; near a singular configuration
        Newton converges linearly and goes on). Returns the residual c, ``P J`` and J's rows
        off its span (:meth:`_kept`): what the checks and the implicit function theorem use,
        where the last step started. The compiled kernel's where it runs (each sample stops on
        its own, so that a sample's numbers do not depend on which samples share its batch;
        where its last step was not below ``tol.step``, a quadratic stop, the three are
        evaluated once more at its end); numpy's (the reference: the batch stops together)
        where the kernel finds ``P J_p`` near singular.

        ``rates`` (full, jacobians): the samples are rows ``samples`` of ``full`` (N, D, n),
        and where the kernel runs at order D - 1 its pass goes on to their positions and
        derivatives there and ``P J``'s jets in ``jacobians`` (:meth:`_derivatives`, one pass
        of the poses fewer). The fourth array (M,) says where it did (numpy's: nowhere)."""
        kernel = self._kernel()
        if kernel is None:
            return (*self._newton_numpy(q, iterations, t, samples), np.zeros(len(q), bool))
        if rates is not None and self._kernel(rates[0].shape[1] - 1) is not None:
            out, c, PJ, off, ok = kernel.loop_newton(
                self.model, q, self.cuts, iterations, self.tol, QUADRATIC,
                SINGULAR_TOL ** 0.5, (rates[0], samples, rates[1]), data=self._backend_data()[1])
            rated = ok
        else:
            out, c, PJ, off, ok = kernel.loop_newton(self.model, q, self.cuts, iterations,
                                                     self.tol, QUADRATIC, SINGULAR_TOL ** 0.5,
                                                     data=self._backend_data()[1])
            rated = np.zeros(len(q), bool)
        if not ok.all():   # (from where the kernel stopped)
            rest = out[~ok]
            c[~ok], PJ[~ok], off[~ok] = self._newton_numpy(rest, iterations, t, samples[~ok])
            out[~ok] = rest
        if out is not q:
            q[:] = out
        return c, PJ, off, rated

    def _newton_numpy(self, q: np.ndarray, iterations: int, t: np.ndarray | None,
                      samples: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`_newton` in numpy, the batch stopping together (the reference)."""
        before = np.inf
        for _ in range(iterations):
            c, J = self.residual(q)
            Jp, Pc = (self.P @ J)[:, :, self.p], self.P @ c[..., None]
            self._nonsingular(Jp, t, samples)
            step = np.linalg.solve(Jp, Pc)[..., 0]
            q[:, self.p] -= step
            size = np.abs(step / self.tol.unit[self.p]).max(initial=0.0)   # (in its unit)
            if size < self.tol.step or (np.abs(Pc).max(initial=0.0) < self.tol.residual
                                            and size < QUADRATIC * before):
                break
            before = size
        return (c, *self._kept(J))

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
        return self._solved(qs, t)[0]

    def _solved(self, qs: np.ndarray, t: np.ndarray | None, forces_order: int | None = None
               ) -> tuple[np.ndarray, np.ndarray | None]:
        """:meth:`joint_rates`, and ``P J``'s jets to order D - 2 (N, D-1, r, n), or to
        ``forces_order`` where that is lower (the torques of order K read K + 1 of them: the
        kernel's last order of the theorem's Jacobian recursion, the costliest, is skipped),
        where the compiled kernel found them on the way (None: numpy's,
        :meth:`jacobian_jets` later)."""
        N, D, _ = qs.shape
        jet_orders = max(min(D - 1, D if forces_order is None else forces_order + 1), 1)
        # the positions with their derivatives and P J's jets in one block: glibc's malloc
        # then keeps a chunk's arrays on its heap from call to call (it trims the heap back to
        # the system above twice the largest block freed: as two blocks, the closed robot's
        # ~14 MB of arrays per 20 000 samples went back after every call and came again as
        # ~2 800 page faults, 0.25-0.3 us a sample; up to 32 MB, ~75 000 samples of the leg)
        size = N * D * self.n
        block = np.empty(size + N * jet_orders * self.rank * self.n)
        full = block[:size].reshape(N, D, self.n)
        if self._kernel(D - 1) is None:   # (numpy's theorem reads q_p^(k) as 0 until it has
            full[:] = 0.0                 # found it; the kernel's pass sets them 0 itself)
        full[:, :, self.a] = qs
        samples = np.arange(N)
        jacobians = block[size:].reshape(N, jet_orders, self.rank, self.n)
        found = True
        if D > 1 and t is not None and N > 2 * TAYLOR:
            anchors = np.zeros(N, dtype=bool)   # (a mask: union1d and setdiff1d sort)
            anchors[::TAYLOR] = anchors[-1] = True   # (every sample between two)
            coarse = np.flatnonzero(anchors)
            # (every COARSE-th sample of the file still continued from the assembly)
            full[coarse, 0], Jp, rated = self._closed(qs[coarse, 0], t, coarse,
                                                      COARSE // TAYLOR, (full, jacobians))
            found &= self._derivatives(full, coarse[~rated], Jp[~rated], jacobians)
            # (where the kernel's pass found the derivatives, their positions are in full
            # already: a fancy-indexed copy of 17 500 rows is ~0.025 us a sample of the leg)
            samples, q, Jp = self._predicted(full, np.flatnonzero(~anchors), t, jacobians)
            full[samples, 0] = q
        else:
            full[:, 0], Jp, rated = self._closed(qs[:, 0], t, samples,
                                                 rates=(full, jacobians) if D > 1 else None)
            samples, Jp = samples[~rated], Jp[~rated]
        found &= self._derivatives(full, samples, Jp, jacobians)
        return full, jacobians if found else None

    def _predicted(self, full: np.ndarray, samples: np.ndarray, t: np.ndarray,
                   jacobians: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The positions at ``samples`` and ``P J_p`` there by Newton from the Hermite
        polynomial of the two anchors around each (every ``TAYLOR``-th sample and the last,
        solved in ``full`` with their derivatives). Where the nearest one's Taylor
        polynomial's last term, or its difference from the Hermite one, exceeds ``TAYLOR_TOL``
        (the samples are far apart in time), the joints that move the closure
        (:attr:`closing`) moved more than ``STEP``, or Newton went farther than ``STEP`` from
        the prediction (every move and term in its joint's unit, :class:`Tolerances`) or did
        not close the loops, the sample is continued from its anchor instead (its branch).
        Returns the samples whose derivatives are still to be found, their positions (M', n)
        and ``P J_p`` there: those where the compiled kernel's Newton did not go on to the
        derivatives (:meth:`_newton`: in ``full`` and ``jacobians``). The kernel runs it all
        in one call (``loop_between``: the same numbers bit for bit; the Python between its
        calls took ~0.03 us a sample of the leg's file) unless some ``P J_p`` there is near
        singular: then step by step."""
        kernel = self._kernel()
        if kernel is not None and self._kernel(full.shape[1] - 1) is not None:
            found = kernel.loop_between(
                self.model, full, t, samples, self.cuts, TAYLOR, STEP, TAYLOR_TOL,
                _hermite(full.shape[1]), ITERATIONS, STEP_ITERATIONS, self.tol, QUADRATIC,
                SINGULAR_TOL ** 0.5, jacobians, data=self._backend_data()[1])
            if found is not None:
                c, PJ, off = found
                return samples[:0], np.empty((0, self.n)), self._checked(c, PJ, off, t,
                                                                         samples)[:0]
        guess, far, anchor = (self._prediction(full, samples, t) if kernel is None else
                              kernel.loop_predict(full, t, samples, TAYLOR, self.a,
                                                  self.cuts.closing, self.tol.unit, STEP,
                                                  TAYLOR_TOL,
                                                  _hermite(full.shape[1])))
        qa = guess[:, self.a]
        q, near = guess.copy(), ~far
        if near.all():   # (the common case: no masked copies)
            c, PJ, off, rated = self._newton(q, ITERATIONS, t, samples, (full, jacobians))
        else:
            M = len(samples)
            c, PJ, off = np.zeros((M, self.n_rows)), np.zeros((M, self.rank, self.n)), np.zeros(M)
            rated = np.zeros(M, bool)
            if near.any():
                part = q[near]   # (a copy: Newton moves it, then it goes back)
                c[near], PJ[near], off[near], rated[near] = self._newton(
                    part, ITERATIONS, t, samples[near], (full, jacobians))
                q[near] = part
        # wandered off, or not closed: continued instead (the checks then judge)
        far |= (_largest((q - guess) / self.tol.unit) > STEP) | \
            (_largest(c @ self.P.T) > self.tol.open)
        if far.any():
            q[far], c[far], PJ[far], off[far], rated[far] = self._continued(
                full[anchor[far], 0], qa[far], t, samples[far], (full, jacobians))
        Jp = self._checked(c, PJ, off, t, samples)
        return samples[~rated], q[~rated], Jp[~rated]

    def _prediction(self, full: np.ndarray, samples: np.ndarray, t: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Newton's starts at ``samples`` (M, n) (:meth:`_predicted`: the Hermite polynomial
        of the anchors around, the actuated joints at their own positions), where they are
        too far (M,) bool, and the nearer anchors (M,); every joint's move and term in its
        unit (:class:`Tolerances`)."""
        N, D = full.shape[:2]
        left = samples - samples % TAYLOR
        right = np.minimum(left + TAYLOR, N - 1)
        anchor = np.where(samples - left <= right - samples, left, right)
        # the nearest anchor's Taylor polynomial
        counted, unit = self.on_loops, self.tol.unit
        guess, last = _taylor(full, anchor, t[samples] - t[anchor], counted, unit)
        qa = full[samples, 0][:, self.a]
        moved = ((qa - full[anchor, 0][:, self.a]) / unit[self.a])[:, self.closing]
        far = (_largest(moved) > STEP) | (last > TAYLOR_TOL)
        # their Hermite polynomial (degree 2D - 1: far closer than either Taylor polynomial),
        # unless it disagrees with the nearest one's Taylor polynomial
        span = t[right] - t[left]
        both = span > 0
        tau = (t[samples] - t[left]) / np.where(both, span, 1.0)
        weights = np.vander(tau, 2 * D, increasing=True) @ _hermite(D)   # (M, 2D)
        scale = np.vander(span, D, increasing=True)
        hermite = np.einsum("sk,skn->sn", weights[:, :D] * scale, full[left]) + \
            np.einsum("sk,skn->sn", weights[:, D:] * scale, full[right])
        far |= both & (_largest(((hermite - guess) / unit)[:, counted]) > TAYLOR_TOL)
        guess = np.where(both[:, None], hermite, guess)
        guess[:, self.a] = qa
        return guess, far, anchor

    def _derivatives(self, full: np.ndarray, samples: np.ndarray, Jp: np.ndarray,
                     jacobians: np.ndarray) -> bool:
        """q_p^(k), k = 1..D-1, at ``samples`` of ``full`` (N, D, n), in place, from ``P J_p``
        there (M, r, r). With q_p^(k) still 0, the k-th derivative of the cuts' gap is ``c^(k)
        = J_a q_a^(k) + sum_{1<=j<k} C(k-1, j) J^(j) q^(k-j)``, the known part: the cuts'
        jets to order k (:meth:`_gap_rate`), no Jacobian's derivative needed. The compiled
        kernel's also fills ``P J``'s jets there in ``jacobians`` (N, KJ <= D-1, r, n: to
        order KJ - 1; its recursion has q to order D - 2) and says so (numpy's: False)."""
        D = full.shape[1]
        if D == 1:
            return False
        kernel = self._kernel(D - 1)
        if kernel is not None:
            if len(samples):   # (none left where Newton's pass found them all: no call)
                kernel.loop_rates(self.model, full, self.cuts, Jp, samples, jacobians,
                                  data=self._backend_data()[1])
            return True
        inverse = np.linalg.inv(Jp)
        part = full[samples]
        for k in range(1, D):
            R, p = self._follow(part[:, : k + 1], k, joints=False)
            known = self.P @ self._gap_rate(R, p, k)[..., None]
            part[:, k, self.p] = -(inverse @ known)[..., 0]
        full[samples] = part
        return False

    def constraint_forces(self, f: np.ndarray, trajectory: Trajectory) -> np.ndarray:
        """lambda and its derivatives (N, K+1, R) (rows ``components``) from the tree's
        torques and theirs f (N, K+1, n) along the joints' ``trajectory``:
        ``J_p^T lambda = f_p``, the kept rows', ``P^T lambda_r`` (module docstring)."""
        return self.split(f, trajectory)[1]

    def split(self, f: np.ndarray, trajectory: Trajectory, axis: int = -1
              ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`forces` and :meth:`constraint_forces` of f (N, K+1, ..., the joints along
        ``axis``) in one projection (:func:`project`: both come out of it), the joints' axis
        last: the compiled kernel's where it runs."""
        axis = axis % f.ndim
        if axis < 2:   # (axis 0 holds the samples, 1 the time derivatives)
            raise HodynError(f"closed loops: forces with their joints on axis {axis}: the "
                             "samples go on axis 0, their time derivatives on 1")
        g = np.moveaxis(f, axis, -1)
        N, K1 = g.shape[:2]
        flat = g.reshape(N, K1, -1, self.n)
        PJ = self._along(self.expand(trajectory), K1 - 1, all_known=True)
        kernel = self._kernel(K1 - 1)
        lam, tau = (project(PJ, flat, self.a, self.p) if kernel is None else
                    kernel.loop_project(PJ, flat, self.cuts.active, self.cuts.passive))
        return (np.moveaxis(tau.reshape(g.shape[:-1] + (-1,)), -1, axis),
                (lam.reshape(-1, self.rank) @ self.P).reshape(g.shape[:-1] + (-1,)))

    # -- the coupling's interface ------------------------------------------------------------
    def phi(self, q: np.ndarray) -> np.ndarray:
        q = np.asarray(q, dtype=float)
        return self.positions(q.reshape(-1, self.m)).reshape(q.shape[:-1] + (self.n,))

    def jacobian(self, q: np.ndarray) -> np.ndarray:
        q = np.asarray(q, dtype=float)
        full = Trajectory(self.joint_names, self.positions(q.reshape(-1, self.m))[:, None])
        return self._G(full, 0)[:, 0].reshape(q.shape[:-1] + (self.n, self.m))

    def random_coordinates(self, rng: np.random.Generator, samples: int) -> np.ndarray:
        """Within ``SPREAD`` of the assembly's actuated positions, each in its unit (rad; the
        loops' length for a prismatic joint, :class:`Tolerances`: 0.5 m took a 31 um
        slider far off its assembly): the loops need not close farther (a crank-rocker's
        rocker cannot turn round)."""
        return self.reference[self.a] + \
            rng.uniform(-SPREAD, SPREAD, size=(samples, self.m)) * self.tol.unit[self.a]

    def tangent(self, v: np.ndarray, q: np.ndarray | None = None) -> np.ndarray:
        if q is None:
            raise HodynError("closed loops: the joint rates need the configuration q")
        return (self.jacobian(q) @ v[..., None])[..., 0]

    def _along(self, full: Trajectory, K: int, all_known: bool = False) -> np.ndarray:
        """``P J^(k)`` (N, K+1, r, n) along the joints' motion: those :meth:`expand` found
        (a :class:`Looped` carries them) where they go to order K, else found now; with
        ``all_known`` to the highest order known (at least K)."""
        known = full.jacobians if isinstance(full, Looped) else None
        if known is None or known.along is not full.derivatives or known.PJ.shape[1] <= K:
            return self.jacobian_jets(full.derivatives, K)
        return known.PJ if all_known else known.PJ[:, : K + 1]

    def _G(self, full: Trajectory, K: int) -> np.ndarray:
        """``G^(k)`` (N, K+1, n, m) along the joints' motion (q to order K at least)."""
        J = self._along(full, K)
        X = -jets.product(jets.inverse(J[..., self.p]), J[..., self.a])
        G = np.zeros(X.shape[:2] + (self.n, self.m))
        G[:, 0, self.a] = np.eye(self.m)
        G[:, :, self.p] = X
        return G

    def expand(self, trajectory: Trajectory, forces_order: int | None = None) -> Trajectory:
        if trajectory.joint_names == self.joint_names:
            return trajectory
        if trajectory.joint_names != self.coordinate_names:
            raise HodynError(f"the trajectory's joints {trajectory.joint_names} are not the "
                             f"actuated joints {self.coordinate_names}")
        qs, PJ = self._solved(trajectory.derivatives, trajectory.t, forces_order)
        # (P J's jets go with it: what :meth:`_along` would find again)
        return Looped(self.joint_names, qs, trajectory.t, trajectory.wrenches,
                      trajectory.series, trajectory.base,
                      None if PJ is None else KnownJacobians(qs, PJ))

    def forces(self, f: np.ndarray, trajectory: Trajectory | None = None, axis: int = -1
               ) -> np.ndarray:
        if trajectory is None:
            raise HodynError("closed loops: projecting forces needs the motion")
        return self.split(f, trajectory, axis)[0]

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

