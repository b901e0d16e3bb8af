"""Higher-order inverse kinematics: q, q', ..., q^(D) of the joints from one link's motion.

The spatial paper's sec. IV (Algorithm 2) combines the inverse kinematics of order k with the
forward kinematics of order k-1 (:mod:`hodyn_cli.algorithms.dynamics.spatial`); its formulas were lost in
the text conversion and are rebuilt here from the identities it names. The r joints on the
path from the root to the link (the others stand still) move it with the spatial twist (8)::

    V^s = J q',     J = [Y_1 ... Y_r]         (instantaneous joint screws (7), root frame)

A *pose* task (m = 6) prescribes ``y' = V^s``; a *position* task (m = 3) the velocity of
the link origin, ``y' = p' = v^s + omega x p = P(p) V^s`` with ``P(p) = [-skew(p), I]``.
With ``J_t = P J`` (``J_t = J`` for a pose task), k derivatives of ``J_t q' = y'`` give::

    y^(k+1) = sum_{j<=k} C(k, j) J_t^(j) q^(k+1-j)
    J^(j) = [Y_1^(j) ...],   J_t^(j) = sum_l C(j, l) P^(l) J^(j-l),   P^(l) = [-skew(p^(l)), 0]

Algorithm 2, all samples of a block at once:

1. Positions: Newton on SE(3) (below); ``J_t`` is factorized once per sample (SVD), which
   also gives its condition number (singularity check).
2. For k = 0 .. D-1:

   a. inverse kinematics of order k+1 (Remark 2)::

        q^(k+1) = J_t^-1 (y^(k+1) - sum_{j=1..k} C(k, j) J_t^(j) q^(k+1-j))

   b. forward kinematics of order k of the path bodies (6), (9)::

        V_i^(k) = V_p^(k) + sum_{j<=k} C(k, j) Y_i^(j) q_i^(k+1-j)
        Y_i^(k+1) = sum_{j<=k} C(k, j) [V_p^(j), Y_i^(k-j)]
        p^(k+1) = v^(k) + sum_{j<=k} C(k, j) omega^(j) x p^(k-j)

Fewer joints than task coordinates (r < m: e.g. a planar arm given a position): ``J_t^-1``
is the least-squares inverse, and a motion the joints cannot follow is an error.

Redundant arms (r > m) take the rates nearest a posture term ``z = K (q_ref - q)``
(``q_ref``: the first sample's solution; K = 0: the minimum-norm rates), ``q' = z + J_t^T lam``,
``A lam = y' - J_t z``, ``A = J_t J_t^T`` -- i.e. ``q' = J_t^+ y' + (1 - J_t^+ J_t) z`` --
and their *exact* derivatives (so q'' is the derivative of q', which
``J_t^+ (y'' - J_t' q')`` is not), with ``z^(k) = -K q^(k)`` for k >= 1::

    A lam^(k) = y^(k+1) - sum_{j<=k} C(k, j) J_t^(j) z^(k-j) - sum_{j=1..k} C(k, j) A^(j) lam^(k-j)
    A^(j) = sum_l C(j, l) J_t^(l) J_t^(j-l)T
    q^(k+1) = z^(k) + sum_{j<=k} C(k, j) J_t^(j)T lam^(k-j)

computed as ``q^(k+1) = J_t^+ c + r`` with ``r = z^(k) + sum_{j>=1} C(k, j) J_t^(j)T
lam^(k-j)``, ``c = b - J_t r`` (b: the right-hand side of step 2a) and ``lam^(k) = A^-1 c``:
the same numbers, but the task equation holds to rounding (``J_t^+`` has J_t's condition
number, ``A^-1`` its square). The minimum-norm rates alone let the self-motion drift (they
are not cyclic): on the shipped iiwa sample it wandered a turn outside three joints' limits.

Their positions are the integral of those rates: between samples, two-point Hermite
quadrature of q' with its D-1 known derivatives (:func:`hermite_steps`, error
``O(h^(2D+1))``, :func:`quadrature_error`), each sample then projected back onto the
prescribed pose by minimum-norm Newton steps (the closed-loop correction that keeps rounding
and quadrature errors from drifting). The quadrature uses the rates at the new sample, so a
block of samples is iterated to its fixed point (Anderson-accelerated: near singular poses
plain passes oscillate), to rounding x condition number or a tenth of the quadrature's own
error, whichever is larger. The compiled kernel runs the same fixed point on the lane groups
of consecutive samples, one group after the other, from a guess accurate to ``O(h^(D+2))``
(the Taylor expansion of the last sample, its q^(D+1) from the last two): one pass usually
converges, and the samples it cannot solve go to the blocks above.

Newton on SE(3). The error of the current pose ``C = (R, p)`` against the target
``(R_d, p_d)`` is the spatial twist ``(omega; v)`` that would carry it there to first order,
``omega = log(R_d R^T)``, ``v = p_d - p - omega x p`` (position task: ``p_d - p``), and
``dq = J_t^+ e``. Each block of samples starts from the Taylor expansion of the last solved
sample (q and its D derivatives over t); the first sample from ``q0`` by damped least
squares (Levenberg-Marquardt), which picks the branch, and is then turned by whole turns
into the joint limits (the same pose; nearest q0).

Continuity. Near a singular pose Newton can land on another branch of the inverse
kinematics (a mirrored elbow, a flipped wrist) a few mrad from the prediction. Every step
between samples is compared with the step its rates explain (Hermite quadrature with the
derivatives still reliable at that condition number, :func:`reliable_orders`); a joint off
by more than 10 % of ``h |q'|`` has jumped. The block is redone in smaller pieces, then a
single sample from damped steps (from the prediction, and from its first-order part, which
does not trust the higher derivatives of a near-singular sample); if it still jumps, an
error naming the time (or, ``on_branch_jump="warn"``, :attr:`InverseKinematics.jumps`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cache
from math import factorial

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.backends.numpy.ik import Task, matvec, pose_error, task_condition
from hodyn_cli.algorithms.backends.numpy.spatial import spatial_twists
from hodyn_cli.core.model import Model
from hodyn_cli.core.motion import LinkMotion
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import HodynError
from hodyn_cli.modeling.limits import beyond_limits
from hodyn_cli.modeling.locking import default_lock_value

__all__ = ["InverseKinematics", "spatial_motion", "inverse_kinematics", "hermite_weights", "hermite_steps",
           "quadrature_error", "reliable_orders", "TASKS", "MAX_CONDITION"]

TASKS = ("pose", "position")
#: default largest condition number of J_t before a sample counts as singular
MAX_CONDITION = 1e4
#: pose error (m, rad) below which Newton has converged
TOLERANCE = 1e-10
#: largest change of a joint (rad or m) between a sample's prediction and its solution
#: before the block is redone in smaller pieces (Newton may have jumped to another branch)
JUMP = 0.2
#: a joint whose step from the sample before differs from the step its rates explain
#: (:func:`hermite_steps`) by more than this fraction of ``h |q'|`` (plus BRANCH_FLOOR, rad
#: or m) has jumped to another branch of the inverse kinematics
BRANCH_JUMP = 0.1
BRANCH_FLOOR = 1e-6
#: 1/s: how fast a redundant arm's self-motion returns to its first pose
POSTURE_GAIN = 2.0
NEWTON_STEPS = 30
#: random starts (besides q0) of the search for every joint solution of one pose, where the
#: joints on the path are as many as the task coordinates (finitely many solutions: a 6R
#: arm's elbow, shoulder and wrist branches, up to 16)
SOLUTION_SEEDS = 64
#: joint solutions closer than this (rad or m, after turning into the limits) are one
SAME_SOLUTION = 1e-6
PICARD_STEPS = 40
ANDERSON = 3      # earlier passes the fixed-point iteration combines
MAX_BLOCK = 256
#: samples the compiled integration is given at once (its inputs are copied per call)
KERNEL_WINDOW = 4096
EPS = np.finfo(float).eps


@dataclass
class IkResult:
    """Joint motion from :func:`inverse_kinematics`.

    Attributes:
        trajectory: q and its D derivatives (the model's joints; those not moving the link
            stand still at q0).
        condition: (N,) condition number of the task Jacobian J_t per sample.
        beyond_limits: joint -> one line naming where q first leaves its URDF limits.
    """

    trajectory: Trajectory
    condition: np.ndarray
    beyond_limits: dict[str, str] = field(default_factory=dict)


def hermite_steps(qs: np.ndarray, h: np.ndarray, condition: np.ndarray | None = None
                  ) -> np.ndarray:
    """Position steps (B, n) between consecutive samples of ``qs`` (B+1, D+1, n) spaced
    ``h`` (B, 1): two-point Hermite quadrature of q' with its D-1 derivatives at both ends.
    With the Jacobian's ``condition`` (B+1,) at the samples, each step uses only the
    derivatives reliable at both its ends (:func:`reliable_orders`; none: a zero step).

    >>> t = np.array([0.0, 0.1]); qs = np.stack([np.sin(t), np.cos(t), -np.sin(t)], 1)[..., None]
    >>> error = hermite_steps(qs, np.array([[0.1]]))[0, 0] - np.sin(0.1)   # ~ h^5 / 720
    >>> bool(0.5 < abs(error) / (0.1**5 / 720) < 1)
    True
    """
    D = qs.shape[1] - 1
    if condition is not None:
        orders = reliable_orders(np.maximum(condition[:-1], condition[1:]), D)
        if orders.min() == D:   # the usual case: every derivative reliable everywhere
            return hermite_steps(qs, h)
        out = np.zeros_like(h * qs[1:, 0])
        for d in np.unique(orders[orders > 0]):
            out[orders == d] = hermite_steps(qs[:, : d + 1], h)[orders == d]
        return out
    # sum_j c_j h^(j+1) (q^(j+1) + (-1)^j q^(j+1) one step on), term by term in this order
    w = hermite_weights(D) * h ** np.arange(1, D + 1)                               # (B, D)
    ends = qs[:-1, 1:] + (-1.0) ** np.arange(D)[:, None] * qs[1:, 1:]                # (B, D, n)
    out = w[:, :1] * ends[:, 0]
    for j in range(1, D):
        out += w[:, j : j + 1] * ends[:, j]
    return out


def quadrature_error(qs: np.ndarray, h: np.ndarray, condition: np.ndarray | None = None
                     ) -> float:
    """Estimated error of :func:`hermite_steps` (same arguments) over all the steps: the sum
    of ``C_d h^(2d+1) |q^(2d+1)|``, ``C_d = d!^2 / ((2d)! (2d+1)!)``, d the derivatives a step
    uses, where the unknown ``|q^(2d+1)|`` is extrapolated geometrically from
    ``|q^(d+1)| ~ |dq^(d)| / h`` with the growth per order ``(|q^(d+1)| / |q'|)^(1/d)`` (a
    motion's frequency: exact for a cosine when d is even): the accuracy the sampling
    allows, at the motion's scale.
    """
    D = qs.shape[1] - 1
    d = (np.full(len(h), D) if condition is None
         else reliable_orders(np.maximum(condition[:-1], condition[1:]), D))
    steps = np.arange(len(h))
    rate = np.abs(qs[:, 1]).max(axis=1)
    first = np.maximum(rate[:-1], rate[1:])                                          # |q'|
    nxt = np.abs(qs[steps + 1, d] - qs[steps, d]).max(axis=1) / h[:, 0]              # |q^(d+1)|
    growth = (nxt / np.where(first > 0, first, np.inf)) ** (1 / np.maximum(d, 1))
    C = _ERROR_CONSTANTS[d]
    return float(np.sum(np.where(d > 0, C * h[:, 0] ** (2 * d + 1) * nxt * growth**d, 0.0)))


def reliable_orders(condition: np.ndarray, D: int) -> np.ndarray:
    """How many of the derivatives q', ..., q^(D) computed at Jacobian condition numbers
    ``condition`` are reliable: derivative k loses digits like ``cond^k`` (each order
    solves with J_t^-1 once more), reliable while ``eps cond^k <= 1e-6``.

    >>> reliable_orders(np.array([10.0, 1e4, 1e7, 1e11]), 4).tolist()
    [4, 2, 1, 0]
    """
    with np.errstate(divide="ignore"):
        k = np.floor(np.log(1e-6 / EPS) / np.log(np.maximum(condition, 1.0 + EPS)))
    return np.clip(k, 0, D).astype(int)


#: ``C_d = d!^2 / ((2d)! (2d+1)!)`` of :func:`quadrature_error`, d = 0 .. 22
_ERROR_CONSTANTS = np.array([factorial(k) ** 2 / (factorial(2 * k) * factorial(2 * k + 1))
                             for k in range(23)])


@cache
def _weight_table(D: int) -> np.ndarray:
    """(D+1, D): row d the :func:`hermite_weights` of d derivatives (then zeros)."""
    table = np.zeros((D + 1, D))
    for d in range(1, D + 1):
        table[d, :d] = hermite_weights(d)
    table.flags.writeable = False   # cached: shared by every caller
    return table


@cache
def hermite_weights(m: int) -> np.ndarray:
    """``c_j``, j < m, of two-point Hermite quadrature with m derivatives at each end::

        int_0^h f = sum_j c_j h^(j+1) (f^(j)(0) + (-1)^j f^(j)(h)) + O(h^(2m+1))

    ``c_j = m! (2m-j-1)! / ((2m)! (m-j-1)! (j+1)!)``: the trapezoid rule for m = 1.

    >>> hermite_weights(2) * 12
    array([6., 1.])
    >>> c = hermite_weights(3)   # exact for polynomials of degree 2m - 1 = 5: int_0^1 t^5
    >>> d = [[0, 0, 0], [1, 5, 20]]   # f, f', f'' of t^5 at 0 and 1
    >>> float(sum(c[j] * (d[0][j] + (-1) ** j * d[1][j]) for j in range(3)))
    0.16666666666666666
    """
    c = np.array([factorial(m) * factorial(2 * m - j - 1)
                  / (factorial(2 * m) * factorial(m - j - 1) * factorial(j + 1))
                  for j in range(m)])
    c.flags.writeable = False   # cached: shared by every caller
    return c


class InverseKinematics:
    """Inverse kinematics of one link, called on consecutive chunks of one motion.

    Each call continues from the last sample of the previous one (the state), so a file
    streams in chunks with the same result as whole. ``q0`` (n,): where the first sample's
    search starts (default: 0, or the middle of a joint's range if 0 is outside);
    ``on_singular``: ``"error"`` or ``"warn"`` (then :attr:`singular` lists the samples);
    ``on_branch_jump`` likewise for samples whose position step the rates do not explain
    (then :attr:`jumps` lists them).
    """

    def __init__(self, model: Model, link: str, *, task: str = "pose", q0=None,
                 max_condition: float = MAX_CONDITION, on_singular: str = "error",
                 on_branch_jump: str = "error", posture_gain: float = POSTURE_GAIN,
                 data: backends.Data | None = None):
        if task not in TASKS:
            raise HodynError(f"unknown task '{task}' (tasks: {', '.join(TASKS)})")
        for name, value in (("on_singular", on_singular), ("on_branch_jump", on_branch_jump)):
            if value not in ("error", "warn"):
                raise HodynError(f"{name} must be 'error' or 'warn', got '{value}'")
        if link not in model.links:
            raise HodynError(f"the model has no link '{link}' (links: {', '.join(model.links)})")
        frame = model.links[link]
        if frame.body < 0:
            raise HodynError(f"link '{link}' is welded to the root: no joint moves it")
        self.model, self.link, self.task = model, link, task
        self.max_condition, self.on_singular = max_condition, on_singular
        self.on_branch_jump, self.posture_gain = on_branch_jump, float(posture_gain)
        self.q_ref: np.ndarray | None = None                      # the first sample's q
        self.frame = frame
        spec = Task(model, frame, np.flatnonzero(model.ancestry[:, frame.body]), task)
        self.unit = length_unit(model, spec)
        self.base = base_point(model, spec)
        #: what the backends' operations take of the task: its condition numbers with the
        #: translational rows at the robot's base, in the arm's length unit (both backends:
        #: their verdicts, and the integration's tolerances and reliable orders, alike)
        self.spec = replace(spec, base=self.base, unit=self.unit)
        self.path, self.m, self.redundant = self.spec.path, self.spec.m, self.spec.redundant
        self.data = data   # the backend's Data for the model (the caller's, per request)
        if q0 is None:
            q0 = [default_lock_value(model, i) for i in range(model.n)]
        self.q0 = np.asarray(q0, dtype=float).reshape(-1)
        if self.q0.shape != (model.n,):
            raise HodynError(f"q0 has {self.q0.size} values, the model {model.n} joints "
                             f"({', '.join(model.joint_names)})")
        self.state: tuple[float | None, np.ndarray] | None = None   # (t, (D+1, n)) last sample
        self.before: tuple[float | None, np.ndarray] | None = None  # ... and the one before
        self.last_condition = 0.0                                    # ... and its condition
        self.done = 0
        self.block = 8
        self.singular: list[tuple[int, float | None, float]] = []   # (sample, t, condition)
        self.condition_max: tuple[float, float | None, int] = (0.0, None, 0)  # (value, t, sample)
        #: (sample, t, joint, step - explained step) of each branch jump
        self.jumps: list[tuple[int, float | None, str, float]] = []
        #: every joint solution of the first sample's pose found, nearest q0 first (the
        #: start), where the path has as many joints as task coordinates; else None
        self.branches: np.ndarray | None = None

    # -- one chunk ----------------------------------------------------------------------
    def __call__(self, motion: LinkMotion) -> tuple[np.ndarray, np.ndarray]:
        """q and its derivatives (N, D+1, n) and the condition numbers (N,) of a chunk."""
        if self.task == "pose" and motion.R is None:
            raise HodynError("a pose task needs the orientation R (or use the position task)")
        motion = spatial_motion(motion)
        y = motion.rates(self.task)
        N, D = motion.n_samples, y.shape[1]
        if self.redundant and (motion.t is None or D == 0):
            raise HodynError(f"'{self.link}' has {len(self.path)} joints for {self.m} task "
                             "coordinates: a redundant arm's positions are integrated from "
                             "its rates, which needs t and the twist (or point velocity) "
                             "columns")
        out = np.empty((N, D + 1, self.model.n))
        cond = np.empty(N)
        i = 0
        if self.state is None:
            q = self.q_ref = self._first(motion)[0]
            out[:1], cond[:1] = self._rates(q[None], motion, slice(0, 1))
            self._accept(out, cond, motion, 0, 1)
            i = 1
        while i < N:
            ahead = self._integrate_ahead(out, cond, motion, i)
            if ahead:   # on to the next window, or back where it stopped (then 0: a block)
                i += ahead
                continue
            B = min(self.block, N - i)
            solved = self._block(motion, slice(i, i + B))
            if isinstance(solved, str):
                if B == 1:
                    self._fail(motion, i, solved)
                self.block = max(1, B // 2)
                continue
            out[i : i + B], cond[i : i + B] = solved
            self._accept(out, cond, motion, i, i + B)
            i += B
            self.block = min(2 * self.block, MAX_BLOCK)
        self.done += N
        return out, cond

    def _accept(self, out, cond, motion: LinkMotion, a: int, b: int) -> None:
        t = motion.t
        self.before = self.state if b - a == 1 else \
            (None if t is None else float(t[b - 2]), out[b - 2].copy())
        self.state = (None if t is None else float(t[b - 1]), out[b - 1].copy())
        self.last_condition = float(cond[b - 1])
        bad = np.flatnonzero(cond[a:b] > self.max_condition)
        if bad.size:
            s = a + int(bad[0])
            if self.on_singular == "error":
                raise HodynError(
                    f"the Jacobian of '{self.link}' is near-singular at {self._when(motion, s)}: "
                    f"condition number {cond[s]:.3g} > {self.max_condition:.3g} (joint rates "
                    f"grow without bound there{self._branch_note()}; --on-singular warn goes "
                    "on)")
            self.singular += [(self.done + a + int(j), None if t is None else float(t[a + j]),
                               float(cond[a + j])) for j in bad]
        j = a + int(np.argmax(cond[a:b]))
        if cond[j] > self.condition_max[0]:
            self.condition_max = (float(cond[j]), None if t is None else float(t[j]), self.done + j)

    def _branch_note(self) -> str:
        """Which branch the motion follows, where the first pose has several."""
        if self.branches is None or len(self.branches) < 2:
            return ""
        return (f", on the branch nearest --q0 of the {len(self.branches)} joint solutions of "
                "the first pose")

    def _when(self, motion: LinkMotion, s: int) -> str:
        where = f"sample {self.done + s}"
        return where if motion.t is None else f"t = {motion.t[s]:.6g} s ({where})"

    def _fail(self, motion: LinkMotion, s: int, reason: str):
        """Raise the error of a sample no block could solve, saying why: the closest pose
        damped steps reach from the prediction, its condition number, and (finitely many
        solutions) whether the pose has joint solutions at all and how far the nearest is."""
        rows = slice(s, s + 1)
        q = self._predict(motion, rows)
        closest, err = self._newton(self._damped(q, motion, rows), motion, rows)
        c = task_condition(self.spec, self._pose_error(closest, motion, rows)[3])[0]
        where = f"{self._when(motion, s)}: {reason}"
        if len(self.path) == self.m:
            found = self._solutions(motion, s, q[0])
            if not found.size:
                hint = ("; no joint configuration reaches this pose (searched from the "
                        f"prediction and {SOLUTION_SEEDS} other starts): it is out of reach")
            else:
                d = self.distance(found[0], q[0])
                hint = (f"; the pose has {len(found)} joint solution(s), the nearest "
                        f"{d:.3g} from where the motion was heading: "
                        + ("the branch followed since the first sample does not reach it "
                           f"(the closest pose damped steps find from there is {err[0]:.3g} "
                           f"away, condition number {c:.3g}), so the motion is on another "
                           "branch; start on it with --q0 near its first joint values"
                           if d > JUMP else
                           "Newton did not reach it from there: the motion changes too fast "
                           "for its sampling"))
        else:
            hint = (f"; the Jacobian is near-singular there (condition number {c:.3g})"
                    if c > self.max_condition else
                    "; the pose may be out of reach, or the motion too fast for its sampling")
        raise HodynError(f"inverse kinematics did not converge at {where}{hint}")

    # -- positions ----------------------------------------------------------------------
    def _targets(self, motion: LinkMotion, rows: slice) -> tuple[np.ndarray | None, np.ndarray]:
        """The link's target orientation (pose task; else None) and position of ``rows``."""
        R = motion.R[rows] if self.task == "pose" and motion.R is not None else None
        return R, motion.p[rows]

    def _pose_error(self, q: np.ndarray, motion: LinkMotion, rows: slice):
        """:func:`pose_error` at q (N, n) towards the targets of ``rows``."""
        return pose_error(self.spec, q, *self._targets(motion, rows))

    def _newton(self, q: np.ndarray, motion: LinkMotion, rows: slice
                ) -> tuple[np.ndarray, np.ndarray]:
        """Newton from q (N, n) towards the targets of ``rows``: (q, error), by the backend
        that runs (:func:`newton` is the reference)."""
        backend, self.data = backends.prepare(self.model, self.data)
        return backend.ik_newton(self.model, self.data, self.spec, q,
                                 *self._targets(motion, rows), NEWTON_STEPS)

    def _damped(self, q: np.ndarray, motion: LinkMotion, rows: slice) -> np.ndarray:
        """Damped least squares (Levenberg-Marquardt) from q (N, n), each sample on its own
        damping: small steps where the Jacobian is near-singular, so it stays near its
        start."""
        q = q.copy()
        e = self._pose_error(q, motion, rows)[-1]
        cost, mu = np.sum(e**2, axis=1), np.full(len(q), 1e-2)
        for _ in range(500):
            going = (cost >= TOLERANCE**2) & (mu <= 1e8)
            if not going.any():
                break
            Jt = self._pose_error(q, motion, rows)[3]
            A = Jt @ np.swapaxes(Jt, 1, 2) + mu[:, None, None] ** 2 * np.eye(self.m)
            trial = q.copy()
            trial[:, self.path] += matvec(np.swapaxes(Jt, 1, 2), np.linalg.solve(A, e[..., None])[..., 0])
            e_new = self._pose_error(trial, motion, rows)[-1]
            better = going & (np.sum(e_new**2, axis=1) < cost)
            q[better], e[better] = trial[better], e_new[better]
            cost[better] = np.sum(e_new[better] ** 2, axis=1)
            mu = np.where(better, np.maximum(mu / 3, 1e-12), np.where(going, mu * 4, mu))
        return q

    def _solutions(self, motion: LinkMotion, s: int, near: np.ndarray) -> np.ndarray:
        """Every distinct joint solution (B, n) found for the pose of sample ``s``: damped
        least squares, then Newton, from ``near`` (n,) and from :data:`SOLUTION_SEEDS` random
        starts (the same every run) in the path joints' limits (a turn of a revolute joint
        where they span more, which covers every pose; +-1 m of an unlimited prismatic one);
        each turned into the limits nearest q0, nearest ``near`` first (:meth:`distance`).
        Joints off the path stay at ``near``."""
        lo, hi = self.model.limits[self.path].T
        revolute = self.model.X[self.path, :3].any(axis=1)
        wide = ~np.isfinite(hi - lo) | (revolute & (hi - lo >= 2 * np.pi))
        span = np.where(revolute, np.pi, 1.0)       # a turn covers every pose; or +-1 m
        lo, hi = np.where(wide, -span, lo), np.where(wide, span, hi)
        starts = np.tile(near, (SOLUTION_SEEDS + 1, 1))
        starts[1:, self.path] = np.random.default_rng(0).uniform(lo, hi, (SOLUTION_SEEDS, len(lo)))
        pose = LinkMotion(np.repeat(motion.p[s : s + 1], len(starts), axis=0),
                          None if motion.R is None else np.repeat(motion.R[s : s + 1], len(starts), axis=0))
        rows = slice(0, len(starts))
        q, err = self._newton(self._damped(starts, pose, rows), pose, rows)
        found: list[np.ndarray] = []
        for x in q[err <= TOLERANCE]:
            x = self._turned_into_limits(x[None])[0]
            if all(np.abs(x - y).max() > SAME_SOLUTION for y in found):
                found.append(x)
        found.sort(key=lambda x: self.distance(x, near))
        return np.array(found).reshape(-1, self.model.n)

    def distance(self, q: np.ndarray, near: np.ndarray | None = None) -> float:
        """How far joint solution q (n,) is from ``near`` (default q0): the largest
        difference of the path joints, a revolute joint's modulo whole turns (the same
        pose: the turn is settled by the limits, :meth:`_turned_into_limits`)."""
        d = q[self.path] - (self.q0 if near is None else near)[self.path]
        turns = self.model.X[self.path, :3].any(axis=1)
        d = np.where(turns, (d + np.pi) % (2 * np.pi) - np.pi, d)
        return float(np.abs(d).max())

    def _first(self, motion: LinkMotion) -> np.ndarray:
        """The first sample. Finitely many solutions (as many path joints as task
        coordinates): every one found (:meth:`_solutions`, kept in :attr:`branches`), the
        nearest q0 the start; else from q0 by damped least squares, then Newton, turned into
        the limits."""
        rows = slice(0, 1)
        if len(self.path) == self.m:
            self.branches = self._solutions(motion, 0, self.q0)
            if self.branches.size:
                return self.branches[:1].copy()
            err = np.array([np.inf])
        else:
            q, err = self._newton(self._damped(self.q0[None], motion, rows), motion, rows)
            if err[0] <= TOLERANCE:
                return self._turned_into_limits(q)
        q0 = ",".join(f"{v:g}" for v in self.q0)
        searched = (f"from q0 = [{q0}] and {SOLUTION_SEEDS} other starts" if
                    self.branches is not None else
                    f"from q0 = [{q0}] (remaining error {err[0]:.3g})")
        raise HodynError(f"no joint configuration reaches the pose of '{self.link}' at "
                         f"{self._when(motion, 0)} {searched}: the pose may be out of reach"
                         + ("" if self.branches is not None else "; try another --q0"))

    def _turned_into_limits(self, q: np.ndarray) -> np.ndarray:
        """q (1, n) with each revolute joint of the path turned by whole turns (the same
        pose) into its limits, the nearest to q0 where several turns fit (limits wider than a
        turn, continuous joints), else left nearest q0."""
        q = q.copy()
        for i in self.path:
            if not self.model.X[i, :3].any():   # prismatic
                continue
            lo, hi = self.model.limits[i]
            value = q[0, i] + 2 * np.pi * np.arange(-(abs(q[0, i]) // (2 * np.pi) + 2),
                                                    abs(q[0, i]) // (2 * np.pi) + 3)
            inside = value[(value >= lo - 1e-9) & (value <= hi + 1e-9)]
            value = inside if inside.size else value
            q[0, i] = value[np.argmin(np.abs(value - self.q0[i]))]
        return q

    @property
    def _last(self) -> tuple[float | None, np.ndarray]:
        """:attr:`state`, which is set from the first sample on (:meth:`__call__` solves it
        before any other)."""
        assert self.state is not None, "the first sample is solved first"
        return self.state

    def _predict(self, motion: LinkMotion, rows: slice, order: int | None = None) -> np.ndarray:
        """Taylor expansion of the last solved sample to the samples ``rows`` (to ``order``)."""
        t_last, qs = self._last
        if motion.t is None or t_last is None:
            return np.broadcast_to(qs[0], (rows.stop - rows.start, self.model.n)).copy()
        h = motion.t[rows] - t_last
        return sum(qs[k] * (h**k / factorial(k))[:, None] for k in range(qs.shape[0])[:order])

    def _block(self, motion: LinkMotion, rows: slice) -> str | tuple[np.ndarray, np.ndarray]:
        """Samples ``rows`` solved (q and derivatives, condition), or why the block must be
        made smaller."""
        guess = self._predict(motion, rows)
        solved = self._solve(guess, motion, rows)
        if isinstance(solved, str):
            return solved
        jump = self._branch_jump(*solved, motion, rows)
        if jump is None:
            return solved
        if rows.stop - rows.start > 1:
            return "jumped"
        # one sample: Newton may have overshot to another branch near a singular pose, or
        # the higher derivatives of the sample before (near-singular) mislead the prediction:
        # damped steps from a first-order prediction stay nearer
        for start in (guess, self._predict(motion, rows, 2)):
            retry = self._solve(self._damped(start, motion, rows), motion, rows)
            if not isinstance(retry, str) and self._branch_jump(*retry, motion, rows) is None:
                return retry
        self._jumped(motion, rows.start, solved[1][0], *jump[1:])
        return solved

    def _solve(self, guess: np.ndarray, motion: LinkMotion, rows: slice
               ) -> str | tuple[np.ndarray, np.ndarray]:
        """Newton from ``guess``, then the rates (redundant arms: the integration)."""
        q, err = self._newton(guess, motion, rows)
        if err.max() > TOLERANCE:
            return f"pose error {err.max():.3g} after {NEWTON_STEPS} Newton steps"
        if rows.stop - rows.start > 1 and np.abs(q - guess).max() > JUMP:
            return "jumped"
        return self._integrate(q, motion, rows) if self.redundant else self._rates(q, motion, rows)

    def _integrate_ahead(self, out, cond, motion: LinkMotion, i: int) -> int:
        """A redundant arm's samples from ``i`` on by the backend's integration (the fixed
        point of :meth:`_integrate` on groups of consecutive samples, the guess a Taylor
        expansion with q^(D+1) from the last two samples), as far as it gets and as long as
        no sample jumps branch (:meth:`_branch_jump`): how many samples it solved and
        accepted (0 where the backend leaves it to the blocks, e.g. numpy's, or cannot
        start), at most :data:`KERNEL_WINDOW`."""
        if not self.redundant or self._last[0] is None:
            return 0
        assert motion.t is not None  # a redundant arm's motion has t (__call__)
        D = out.shape[1] - 1
        rows = slice(i, min(out.shape[0], i + KERNEL_WINDOW))
        before = self.before if self.before is not None and self.before[0] is not None \
            else None
        backend, self.data = backends.prepare(self.model, self.data)
        qs, c = backend.ik_integrate(
            self.model, self.data, self.spec, motion.rates(self.task)[rows],
            *self._targets(motion, rows), motion.t[rows],
            self.q_ref, self.posture_gain, (*self._last, self.last_condition), before, _weight_table(D),
            _ERROR_CONSTANTS, newton_steps=NEWTON_STEPS, passes=PICARD_STEPS // 4,
            tolerance=TOLERANCE, jump=JUMP)
        k = len(c)
        if k:
            jump = self._branch_jump(qs, c, motion, slice(i, i + k))
            k = k if jump is None else jump[0]   # the Python blocks redo the jumped sample
        if k:
            out[i : i + k], cond[i : i + k] = qs[:k], c[:k]
            self._accept(out, cond, motion, i, i + k)
        return k

    def _integrate(self, q: np.ndarray, motion: LinkMotion, rows: slice
                   ) -> str | tuple[np.ndarray, np.ndarray]:
        """Redundant arms: the positions of ``rows`` integrated from their rates (Hermite
        quadrature from the last sample) and projected onto the pose: the fixed point of
        ``q = G(q)``, found with Anderson acceleration (plain Picard passes oscillate where
        the rates change fast), to rounding (scaled by the condition number) or a tenth of
        the quadrature's own error (:func:`quadrature_error`), whichever is larger."""
        t_last, qs_last = self._last
        assert motion.t is not None  # a redundant arm's motion has t (__call__)
        h = np.diff(np.concatenate([[t_last], motion.t[rows]]))[:, None]
        xs: list[np.ndarray] = []   # the last passes' x and G(x), flat
        gs: list[np.ndarray] = []
        for _ in range(PICARD_STEPS):
            qs, cond = self._rates(q, motion, rows)
            both = np.concatenate([qs_last[None], qs])            # (B+1, D+1, n)
            c = np.concatenate([[self.last_condition], cond])
            g, err = self._newton(qs_last[0] + np.cumsum(hermite_steps(both, h, c), axis=0),
                                  motion, rows)
            if err.max() > TOLERANCE:
                return f"pose error {err.max():.3g} after {NEWTON_STEPS} Newton steps"
            change = np.abs(g - q).max()
            tol = ((1.0 + np.abs(g).max()) * max(1e-12, 100 * EPS * cond.max())
                   + 0.1 * quadrature_error(both, h, c))
            if change <= tol:
                return self._rates(g, motion, rows)
            xs, gs = [*xs[-ANDERSON:], q.ravel()], [*gs[-ANDERSON:], g.ravel()]
            q = g
            if len(xs) > 1:   # the combination of the last G(x) whose residuals cancel best
                dG = np.diff(np.array(gs), axis=0).T
                dF = dG - np.diff(np.array(xs), axis=0).T
                gamma = np.linalg.lstsq(dF, gs[-1] - xs[-1], rcond=None)[0]
                q = (gs[-1] - dG @ gamma).reshape(g.shape)
        return (f"the integrated positions still change by {change:.3g} after {PICARD_STEPS} "
                "passes")

    def _branch_jump(self, qs: np.ndarray, cond: np.ndarray, motion: LinkMotion, rows: slice
                     ) -> tuple[int, int, float, float] | None:
        """The first sample of ``rows`` (offset, joint, step, explained step) whose position
        step from the sample before is not the one its reliable rates explain
        (:func:`hermite_steps`; :data:`BRANCH_JUMP`), or None. Needs t and rates."""
        t_last, qs_last = self._last
        if motion.t is None or t_last is None or qs.shape[1] == 1:
            return None
        both = np.concatenate([qs_last[None], qs])
        h = np.diff(np.concatenate([[t_last], motion.t[rows]]))[:, None]
        c = np.concatenate([[self.last_condition], cond])
        explained = hermite_steps(both, h, c)
        step = np.diff(both[:, 0], axis=0)
        rate = np.maximum(np.abs(both[:-1, 1]), np.abs(both[1:, 1]))
        miss = np.abs(step - explained) - BRANCH_JUMP * h * rate - BRANCH_FLOOR
        miss[reliable_orders(np.maximum(c[:-1], c[1:]), 1) == 0] = 0.0   # no rate to judge by
        if miss.max() <= 0:
            return None
        s = int(np.argmax((miss > 0).any(axis=1)))
        j = int(np.argmax(miss[s]))
        return s, j, float(step[s, j]), float(explained[s, j])

    def _jumped(self, motion: LinkMotion, s: int, cond: float, j: int, step: float,
                explained: float) -> None:
        joint = self.model.joint_names[j]
        if self.on_branch_jump == "error":
            raise HodynError(
                f"the joint motion jumps to another branch at {self._when(motion, s)}: "
                f"q_{joint} changes by {step:.3g} from the sample before, its rates explain "
                f"{explained:.3g} (condition number {cond:.3g}: near a singular pose, or the "
                "motion is not continuous there; --on-branch-jump warn goes on)")
        t = None if motion.t is None else float(motion.t[s])
        self.jumps.append((self.done + s, t, joint, step - explained))

    # -- rates: Algorithm 2 -------------------------------------------------------------
    def _rates(self, q: np.ndarray, motion: LinkMotion, rows: slice
               ) -> tuple[np.ndarray, np.ndarray]:
        """q^(1..D) at positions q (N, n), Algorithm 2 by the backend that runs
        (:func:`rates` is the reference); returns ((N, D+1, n), condition). A path with
        fewer joints than task coordinates must reproduce the prescribed rates."""
        backend, self.data = backends.prepare(self.model, self.data)
        qs, cond, miss = backend.ik_rates(self.model, self.data, self.spec, q,
                                          motion.rates(self.task)[rows], self.q_ref,
                                          self.posture_gain)
        bad = np.argwhere(miss > 1e-8)
        if bad.size:
            s, k = (int(x) for x in bad[0])
            raise HodynError(f"the {len(self.path)} joints moving '{self.link}' cannot follow "
                             f"its {'twist' if self.task == 'pose' else 'velocity'} derivative "
                             f"{k} at {self._when(motion, rows.start + s)} (misses by "
                             f"{miss[s, k]:.3g})")
        return qs, cond


def base_point(model: Model, task: Task) -> np.ndarray:
    """The origin (3,) of the robot's base, root axes: the link that carries the path's
    first joint (fixed to the root: the mounting). A pose task's condition number takes its
    translational rows there and :func:`length_unit` measures the reach from there, so that
    a mounting offset changes neither (tests/test_ik_mounting.py); the root's origin where
    the model does not name that link.

    >>> from pathlib import Path
    >>> from hodyn_cli.modeling.urdf import load_model
    >>> model = load_model(Path(__file__).parents[3] / "urdf" / "iiwa14.urdf")
    >>> frame = model.links["iiwa_link_ee"]
    >>> base_point(model, Task(model, frame, np.flatnonzero(model.ancestry[:, frame.body]), "pose"))
    array([0., 0., 0.])
    """
    base = model.links.get(model.parent_links[task.path[0]]) if model.parent_links else None
    return base.T[:3, 3].copy() if base is not None and base.body < 0 else np.zeros(3)


def length_unit(model: Model, task: Task) -> float:
    """The power of ten nearest the arm's reach (m): the lengths of the joints' offsets along
    the path to the link (the first one's from the robot's base, :func:`base_point`) and the
    link's own offset, at q = 0. A power of ten, so that every arm of 0.32 to 3.2 m keeps its
    condition numbers in metres bit for bit (and the meaning of ``--max-condition`` it was
    tuned on), and one scaled by 10^k sees exactly the same verdicts; 1 where the reach is 0
    (a link at the root's origin).

    >>> from pathlib import Path
    >>> from hodyn_cli.modeling.urdf import load_model
    >>> model = load_model(Path(__file__).parents[3] / "urdf" / "iiwa14.urdf")
    >>> frame = model.links["iiwa_link_ee"]
    >>> length_unit(model, Task(model, frame, np.flatnonzero(model.ancestry[:, frame.body]), "pose"))
    1.0
    """
    offsets = model.B[task.path, :3, 3].copy()
    offsets[0] -= base_point(model, task)
    reach = float(np.linalg.norm(offsets, axis=1).sum() + np.linalg.norm(task.frame.T[:3, 3]))
    return 10.0 ** round(np.log10(reach)) if reach > 0 else 1.0


def spatial_motion(motion: LinkMotion) -> LinkMotion:
    """The motion with spatial twists ``Vs`` (converted from the body-fixed ``Vb`` if those
    are what it has)."""
    if motion.Vs is not None or motion.Vb is None or motion.R is None:
        return motion
    return replace(motion, Vs=spatial_twists(motion.R, motion.p, motion.Vb), Vb=None)


def inverse_kinematics(model: Model, motion: LinkMotion, link: str, *, task: str = "pose",
                       q0=None, max_condition: float = MAX_CONDITION,
                       on_singular: str = "error", on_branch_jump: str = "error",
                       posture_gain: float = POSTURE_GAIN) -> IkResult:
    """Joint motion q..q^(D) that moves ``link`` as ``motion`` prescribes (Algorithm 2).

    D is the number of twist derivatives given (pose task: ``Vs`` ... ) or point
    derivatives (position task: ``pd`` ...). See the module docstring for the scheme.

    >>> from pathlib import Path
    >>> from hodyn_cli.modeling.urdf import load_model
    >>> from hodyn_cli.core.trajectory import cosine
    >>> from hodyn_cli.algorithms.motion.kinematics import link_kinematics
    >>> model = load_model(Path(__file__).parents[3] / "urdf" / "planar_2r.urdf")
    >>> traj = cosine(model.joint_names, [0.0, 0.01], amplitude=0.5, omega=1, offset=0.3, orders=4)
    >>> motion = LinkMotion.of(link_kinematics(model, traj, "tool0", order=2), traj.t)
    >>> result = inverse_kinematics(model, motion, "tool0", task="position", q0=[0.5, 0.5])
    >>> float(np.abs(result.trajectory.derivatives - traj.derivatives[:, :4]).max()) < 1e-12
    True
    """
    solver = InverseKinematics(model, link, task=task, q0=q0, max_condition=max_condition,
                               on_singular=on_singular, on_branch_jump=on_branch_jump,
                               posture_gain=posture_gain)
    qs, cond = solver(motion)
    return IkResult(Trajectory(model.joint_names, qs, motion.t), cond,
                    beyond_limits(model, qs[:, 0], motion.t))
