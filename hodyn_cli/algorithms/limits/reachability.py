"""Time-optimal path parameterisation by reachability (TOPP-RA: H. Pham and Q.-C. Pham, "A
new approach to time-optimal path parameterization based on reachability analysis", IEEE
T-RO 34(3), 2018) along the path's **arc length** in joint space.

**The path parameter.** The input's time s makes ``q' = dq/ds`` vanish at a rest of the
input, where the fastest law in s is singular (``docs/feasibility.md``). Its arc length
``sigma(s) = int |q'(s)| ds`` does not stop there: ``q_sigma = q' / |q'|`` has unit norm and
``q_sigmasigma = (q'' - q_sigma (q_sigma . q'')) / |q'|^2`` (the component of q'' across the
path) stays finite where the path is smooth (:func:`arcs`). Where the path turns at a rest (a
corner: the directions in and out differ) it has no tangent; it is cut there into pieces
that start and end at rest (x = 0), as toppra is run on each leg, and each leg's law is
played with a ramp into and out of the corner (:mod:`~hodyn_cli.algorithms.limits.ramps`:
the output's q' .. q^(5) vanish there from both sides, at a cost of about half the ramp's
rise on each side).

**The limits.** With ``u = sigma_ddot`` and ``x = sigma_dot^2``, every limit of time order 0
(torque; the drives' motor torque and current without friction would be too, but
``--drives`` goes to the linear programmes) and the joint accelerations are affine
in (u, x) at each grid point, ``a u + b x + c``, and the velocities bound x alone
(``|q_sigma| sqrt(x) <= v``): their coefficients are those of
:func:`~hodyn_cli.algorithms.limits.programme.path_limits` (the dynamics on probe motions,
batched over the grid) on the path in sigma (:func:`rows`); what is not so (torque rates,
jerk, friction, contact cones) is not for this solver (:func:`inapplicable`).

**Reachability** (:func:`controllable`, :func:`greedy`). On a grid ``sigma_0 .. sigma_N``
with ``x_{i+1} = x_i + 2 Delta_i u_i`` (u constant on an interval), the controllable set
``K_i`` is the x from which some u feasible at i reaches ``K_{i+1}``: a linear programme in
(u, x), solved exactly by eliminating u (Fourier-Motzkin: every pair of rows with opposite
signs of their u coefficient gives one bound on x), the pairs among the limits' own rows once
for the whole grid (batched), those with the two rows of ``K_{i+1}`` per step (affine in its
ends). The forward pass takes at each point the largest u that stays controllable. The
duration of the law (x linear on each interval): ``sum 2 Delta_i / (sqrt x_i + sqrt
x_{i+1})``. Both passes are sequential: the backend's compiled ``reach_controllable`` and
``reach_forward`` (numpy's reference: a Python loop), piece by piece of the grid
(:func:`along`: memory a piece's rows, whatever the length). With velocity and torque limits
alone, each interval's u keeps the rows of both its ends (:func:`interpolated`: toppra's
interpolation discretisation), not its first point's alone (collocation).

**Memory.** The input path is never held: its arc-length table is made chunk by chunk as
the input is first read (:class:`Lengths`), the directions about its rests and the shape's
points from two more readings (:func:`arcs`); the played motion is made chunk by chunk of
the grid from the smoothed law's spline (:class:`Played`). The arc-length table, the
shape points' targets, places and points, the shape's coefficients, the controllable
sets, the law (x and u) and the played law's points and times are on disk
(:class:`~hodyn_cli.algorithms.limits.stored.Stored`), read a block at a time (the table and
the targets in order: :func:`_placed`; the shape fitted a block at a time from its points
there, :func:`~hodyn_cli.algorithms.limits.bsplines.blocks_of`); the grid is made where it
is read (:class:`~hodyn_cli.algorithms.limits.spaced.Spaced`: uniform in arc length);
the smoothing's moving averages are made a block at a time, each from the one before on
disk and its running integral carried across the blocks (:func:`_sweeps`), and the played
law's spline keeps its coefficients on disk, its knots the grid's (:class:`LawSpline`).
What spans the path in memory is the shape's knots (one number a shape point, at most two
a sample: :func:`_targets`): :data:`MOST_SAMPLES`.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.dynamics.common import GRAVITY
from hodyn_cli.algorithms.limits.bsplines import BSpline, blocks_of, coefficients_of, in_blocks, windowed
from hodyn_cli.algorithms.limits.distinct import distinct
from hodyn_cli.algorithms.limits.jets import compose, hermite_at
from hodyn_cli.algorithms.limits.programme import PathLimit, between, path_limits, time_derivatives
from hodyn_cli.algorithms.limits.ramps import TAIL, Ramp, Start
from hodyn_cli.algorithms.limits.spaced import Spaced
from hodyn_cli.algorithms.limits.stored import Stored
from hodyn_cli.algorithms.limits.stored_grid import StoredGrid
from hodyn_cli.algorithms.limits.strays import STRAY, off, projected, travel
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import HodynError
from hodyn_cli.modeling.limits import Limits

__all__ = ["Source", "source", "overlapping", "Table", "Lengths", "lengths",
           "Arc", "Rows", "Law", "Played", "arcs", "Inapplicable", "inapplicable",
           "rows", "controllable", "greedy",
           "along", "solve", "swept", "ramps_delay", "law_spline", "law_duration", "kernel", "scale_of"]

#: a point of the path is at rest where ``|q'|`` is below this share of its largest value
REST = 1e-3
#: a rest is a corner where the cosine between the directions in and out is below this
TURN = 1 - 1e-4
#: sub-intervals per input interval of the arc length's table at least (:func:`subdivisions`: more
#: on an input coarser than SHAPE_RATE; the grid's points are placed
#: by it, their own arc length then computed exactly)
SUBDIVIDE = 2
#: points of the path evaluated at once (memory: this many times its D orders and joints),
#: and the grid intervals of a piece of the passes (memory: a piece's rows, :func:`along`)
BLOCK = 1 << 15
#: the reachability grid's intervals at least, and PER_SAMPLE per input sample on a long
#: path (the smoothing reaches SMOOTH intervals at least: on a coarser grid it is longer in
#: time, 100 s of the iiwa's cosine at one interval per sample lost 1.5 % to it)
POINTS = 4000
PER_SAMPLE = 3
#: the longest input (samples) it takes. It reads the input chunk by chunk (:class:`Lengths`,
#: :func:`arcs`) and holds in memory, of what spans the whole path, the shape's knots alone
#: (one number a shape point, at most two a sample); the arc-length table, the shape points'
#: targets, places and points, the shape's coefficients, the controllable sets, the law (x
#: and u), the smoothing's moving averages, the local slowing's fields and the played law's
#: points, times and spline coefficients are on disk
#: (:class:`~hodyn_cli.algorithms.limits.stored.Stored`), the grid is made where it is read
#: (:class:`~hodyn_cli.algorithms.limits.spaced.Spaced`), and the passes' rows, the
#: smoothing's blocks, the played motion, the fits and the splines' banded systems
#: (:func:`~hodyn_cli.algorithms.limits.bsplines.blocks_of`) are a chunk's. Peak RSS on the
#: iiwa's cosine: 184-190 MB at 10^5 samples, 191 MB at 10^6 (248-267 MB with the law on
#: the grid and the shape points' targets in memory, 396-402 MB with the smoothing's arrays
#: and the played law's spline too, 587-605 MB with the rest; 1.77 GB holding the path and
#: the law's time derivatives: review13; memflat in benchmarks/README.md). Kept at 2 x
#: 10^6 until a longer run is measured (10^7: ~1 h of CPU here, a 2.9 GB input, a 2.2 GB
#: output and ~3 GB of temporary files). Longer inputs go to the windows of linear
#: programmes (``--solver auto``), which hold a chunk, or are refused (``--solver
#: reachability``)
MOST_SAMPLES = 2_000_000
#: the points of the path's shape (:func:`arcs`) at least; more on a long path, one per
#: SPACING of its length in joint space (rad, m) at most: closer points make its top
#: derivatives rounding (~1e-16 / h^4 in q_sigma^(4))
SHAPE = 400
SPACING = 0.02
#: ... and one per input sample, or as many as an input at this rate (Hz) has where it is
#: coarser: between its samples the input's Hermite interpolant is its path, known as well
#: as at them. (One per sample alone, Laikago's and HyQ's legs along a 9-harmonic Fourier
#: path at 20 Hz, their 401 samples over 20 s, had a shape too coarse for their sharpest
#: turns: Laikago's passes' law 3.764 s with 2001 points, toppra's 3.7345 s, its output
#: 4.10839 s; with 401, reachability's law slower than the uniform scaling's 6.08147 s;
#: benchmarks/README.md, 2026-12-02, lead17)
SHAPE_RATE = 100.0
#: there at most this many times as dense as over the arc length (64 capped the Borinot's
#: flying arm's Fourier path, whose turns ask for ~400 times: its passes' law 6.21 s on
#: the grid denser where it turns, 5.32 s at 1024; the bench's inputs ask for 64 at most,
#: their shapes the same; benchmarks/README.md, borinot19)
DENSEST = 1024
#: where the path turns by more than this (rad) between two shape points uniform in arc
#: length, a shape point every ANGLE of its turning instead (:func:`_targets`; 0.05 made
#: the iiwa's Fourier paths with its limits file 1e-7 longer, 0.025 1e-5; at 0.1 they are
#: the same to the bit, the two-link arm's 5.0969 s against 5.1026 s at 0.05;
#: benchmarks/README.md, shapeknots2)
ANGLE = 0.1


@dataclass(frozen=True)
class Turns:
    """Where points crowd where the path turns (:func:`_measure`): one every ``angle`` (rad)
    of its turning where that is denser than the points uniform in arc length, and ``sharp``
    times as dense at least (else uniform there), at most ``densest`` times as dense; the
    turning adds ``more`` times the uniform points at most in all (:func:`_targets`);
    ``grade``: where above 0, the points' spacing graded (:func:`_graded`)."""

    angle: float
    densest: float
    more: float = 1.0
    sharp: float = 0.0
    grade: float = 0.0


#: the shape points' spacing grows by at most this share of itself from one to the next
#: (:func:`_graded`): the turning measure alone made it jump up to DENSEST times between
#: table intervals, and the degree-7 spline through the points rang there (the generic
#: quadruped's leg along a 9-harmonic Fourier path: the shape 76 rad off the path between
#: its knots, which are on it); moving averages of the points (:func:`_calmed`) spread its
#: hairpins' points out (5.5e-3 rad off). Measured on that leg's fourier5s (100, 200 Hz) and
#: fourier9 (20, 100, 1000 Hz) paths, the shape's largest distance from the path: 1.6e-4 ..
#: 6.5e-4 rad at 0.1 and at 0.2 (6-33 % more shape points than ungraded; 0.1: 17-38 %),
#: 5.6e-4 .. 1.1e-3 at 0.3, 0.035 .. 0.17 at 0.5 (the spline rings again)
GRADE = 0.2
#: the passes at most that scale the turning's points down where they add too many
#: (:func:`_targets`): ungraded, the extra is linear in the scale, one pass; graded, it
#: falls more slowly, each pass then by the secant of log extra in log scale (the
#: quadruped's leg's fourier9 paths at 20 and 100 Hz: scales 0.786, 0.653, 0.6416, 0.6414,
#: the last within the cap; the proportional step alone, 0.787 .. 0.657, still over it)
SCALINGS = 4
#: the reachability grid's :class:`Turns` (:func:`_grids`): a point every 0.005 rad of the
#: path's turning where that is 8 times as dense as the grid uniform in arc length at least
#: (the bench's inputs turn by 1.8 times at most: their grids uniform, the same bits; at 4,
#: the human arm's and the Kinova's fourier9 paths at 1 kHz, 6.9 and 6.3 times, were 3e-5
#: longer: where a few hundred points fall, not the turns' dips), at
#: most 256 times as dense, the turning adding 8 times the grid's points at most. Where a path
#: turns within a few thousandths of its arc length, its torque bound on x dips there as
#: sharply (x at most ~ tau / |M q_sigmasigma|), which a grid uniform in arc length crosses
#: in a point or two, and the smoothing's floor of SMOOTH intervals and the lowering
#: spread the dip over 8-16 of those: the Borinot's flying arm (2.5 N m, 10^4 rad/s) along a
#: 9-harmonic Fourier path, 36 such turns 1.5 mrad long on a grid of 10 mrad
#: (one every 0.01 rad, at most 64 times as dense and as many points again at most: 5.45
#: and 5.39 s at 20 and 100 Hz, toppra's 4000 intervals 5.3335 s, the optimum ~5.235 s;
#: as here: 5.338 and 5.287 s, with no floor on the turning, sharp 0, 5.297 and 5.273 s;
#: benchmarks/README.md, borinot19)
GRID_TURNS = Turns(0.005, 256.0, 8.0, 8.0)
#: the grid's points where it turns averaged by CALMING moving averages over this many
#: intervals either side (odd: its ends kept), so that its step changes smoothly: the
#: smoothing's moving averages are over grid intervals, and where the step jumps (up to
#: GRID_TURNS.densest times from one table interval to the next) the smoothed x's slope in arc
#: length, 2 u, jumps with it. Unaveraged, the played law went beyond the Borinot's torque
#: limits about its turns and the local slowing cost 20 % (7.53 s, slower than the uniform
#: scaling, at 20 Hz); over 8 intervals 5.47 s, over 32 5.33 s
GRID_CALM = 32.0
#: at a moving end where the rows force the law's u off 0 (:func:`forced`: the law must
#: brake or speed up at their bound there), the grid's END intervals next to it are each cut
#: into END_FINER before the grid is calmed (:func:`_ends_finer`, :func:`_grids`): the
#: smoothing keeps a moving end's x and the mean of u over its kernel, SMOOTH intervals at
#: least, and so breaks a u the rows ask at the end alone, over END_FINER times less arc
#: length on the finer grid. The Borinot's flying arm along a 9-harmonic Fourier path starts
#: at x 517.7 where its torque rows ask u <= -1918 (the passes -2297, the smoothed -1270: its
#: lowered law's fit 1.62 times slower, and the slower law within the rows played instead;
#: docs/feasibility.md, ends21)
END = 40
END_FINER = 8
#: ... where that bound changes x over one grid interval by this share of it at least (at
#: the largest x the rows allow there; the smoothing's kernel spans SMOOTH intervals at
#: least: 8 times as much over it). Measured, not derived (sweep17/18's fourier9 paths):
#: the Borinot's 8.1 and 258 % at its start and end at 100 Hz, 10.7 and 343 % at 20 Hz, made
#: 0.19 and 0.25 % shorter; Laikago's leg's 1.9 and 2.9 %, 2e-5 longer and shorter, Bolt's
#: leg's 1.4 % and the TriFinger's 2.4 and 3.5 %, 6e-5, 8e-5 and 2e-4 shorter; the Panda's
#: 10^5-sample Fourier path with its limits file starts and ends on its rows' knife edge
#: (0.37 %), whose last 2001 samples the finer ends made 0.22 % longer (6.8024 -> 6.8172 s;
#: uncalmed 6.7987 s, but uncalmed the Borinot's ends gained 0.05 % alone, and the iiwa's
#: Fourier paths with --jerk 8.6 % longer: docs/feasibility.md); Go1's leg's 0.02 %. 5 %
#: lies a factor ~1.6 below the Borinot's least and ~1.4 above the rest: no path longer, the
#: Borinot's 0.2 % kept, those 1e-4 left (the Go2's leg's 10 s cosine, forced: 4e-5
#: shorter). Not on a grid asked for (--arc-grid: uniform)
FORCED = 0.05
#: where the law smoothed over the chosen kernel (:func:`smoothed`) leaves one of the passes'
#: rows by more than 1 - ROWS_KEPT of x at a grid point (:func:`_needs`), its rows'
#: coefficients change too fast along the path over the kernel for the average of (u, x)
#: to stay within them, and the grid is made DENSER times as dense over DENSER_REACHES of
#: the kernel's reaches about that point (:func:`denser`; the grid made, calmed, cut there
#: and calmed again: cut before it was calmed, its steps jumped more, and the Borinot's
#: below was 5.2639 and 5.2645 s): the kernel's widths read the grid's longest step
#: (:func:`_step`), so there it spans DENSER times less arc length, and the excess of its
#: average falls with the square of that. The Borinot's flying arm along a 9-harmonic
#: Fourier path (a torque row that nearly cancels, ``b x`` ~8 times ``gamma``): its law
#: smoothed left its rows by up to 8 % at ~25 places of the fast stretches (and 30 % at its
#: forced ends), the law kept within them (:func:`within`) played 0.45 % slower than the
#: passes, its output 5.2770 and 5.2706 s at 100 and 20 Hz (+0.83 and +0.71 % over the
#: optimum, ~5.2336 s); on the denser grid 5.2496 and 5.2471 s (+0.31 and +0.26 %; over
#: one reach 5.2519 and 5.2517 s, DENSER 8 no shorter: docs/feasibility.md, rows22)
ROWS_KEPT = 0.99
DENSER = 4
DENSER_REACHES = 2
#: the grid of each piece: at least this many intervals
LEAST = 16
#: and at least this many where the grid has them (a piece's share of it in proportion to
#: its length left the 30 legs of a zigzag through 31 waypoints ~133 intervals each: the
#: smoothing's SMOOTH intervals were then ~6 % of a leg, 3.8 % slower than toppra's lines;
#: 0.76 % at 1000)
PIECE = 1000
#: the monomials of the time law's derivatives a row may have (sigma_k = s^(k)): 1, sigma_2
#: (u), sigma_1^2 (x); the velocity's sigma_1 alone
_AFFINE = {(), (1, 1), (2,)}


#: a grid of points: in memory, made where it is read, or read from disk
Grid = np.ndarray | Spaced | StoredGrid


@dataclass(frozen=True, eq=False, repr=False)
class Arc:
    """A piece of the path between rests where it turns: its shape q(sigma) (a spline
    through points of the path at their arc length, :data:`DEGREE`: its ``knots`` (m,) and
    ``coefficients`` (m - DEGREE - 1, n), on disk: ~one point an input sample, each n
    numbers), on ``sigma`` (M,), a grid from 0 uniform in arc length (made where it is read,
    :class:`~hodyn_cli.algorithms.limits.spaced.Spaced`: 3 points an input sample, held from
    the passes to the output's last sample) or denser where the path turns sharply
    (:func:`_grids`: on a long path on disk, :class:`StoredGrid`); ``rest``: (at its start,
    at its end) whether the path is at rest there (x = 0); ``still``: (n,) the position of
    each joint that does not move along it (:func:`_still`), NaN where it moves."""

    sigma: Grid
    knots: np.ndarray
    coefficients: Stored
    rest: tuple[bool, bool]
    still: np.ndarray

    @property
    def shape(self) -> BSpline:
        """The whole shape (all its coefficients read)."""
        return BSpline(self.knots, self.coefficients[:], DEGREE)

    def jet(self, sigma: np.ndarray, orders: int) -> np.ndarray:
        """(E, orders, n) ``q, q_sigma, ...`` at sigma (sorted: a chunk of the grid), from
        the shape's pieces there (:func:`~hodyn_cli.algorithms.limits.bsplines.windowed`:
        their coefficients alone read, their derivatives made for them alone)."""
        window = windowed(self.knots, self.coefficients, DEGREE, float(sigma[0]),
                          float(sigma[-1])) if len(sigma) else self.shape
        jet = window.jet(sigma, orders)
        fixed = ~np.isnan(self.still)  # (exactly where they are: see _still)
        jet[:, 0, fixed], jet[:, 1:, fixed] = self.still[fixed], 0.0
        return jet

    def trajectory(self, names: tuple[str, ...], a: int = 0, b: int | None = None
                   ) -> Trajectory:
        """The piece as a path in sigma (its "times"; q .. q_sigmasigma) at the grid points
        a .. b-1, for :func:`path_limits`."""
        sigma = self.sigma[a:b]
        return Trajectory(names, self.jet(sigma, 3), sigma)


#: the input path, its chunks afresh at each call (memory: a chunk; a whole
#: :class:`~hodyn_cli.core.trajectory.Trajectory` is one chunk: :func:`source`)
Source = Callable[[], Iterable[Trajectory]]


def source(path: Trajectory | Source) -> Source:
    """``path`` as a :data:`Source` (a whole path: its one chunk)."""
    return (lambda: [path]) if isinstance(path, Trajectory) else path


def _joined(a: Trajectory, b: Trajectory) -> Trajectory:
    """The samples of a, then b's (their times and derivatives)."""
    return Trajectory(b.joint_names, np.concatenate([a.derivatives, b.derivatives]),
                      np.concatenate([a.t, b.t]))


def overlapping(chunks: Iterable[Trajectory]) -> Iterator[Trajectory]:
    """The chunks of a path, each after the first with the last sample of the one before it
    at its start: every interval between the input's samples in exactly one of them, as
    the whole path has it (:func:`~hodyn_cli.algorithms.limits.programme.between` there
    the same to the bit)."""
    carry = None
    for chunk in chunks:
        if not chunk.n_samples:
            continue
        path = chunk if carry is None else _joined(carry, chunk)
        carry = path.rows(slice(-1, None))
        if path.n_samples >= 2:
            yield path


def _walk(chunks: Iterable[Trajectory], s: Column | _Part) -> Iterator[tuple[Trajectory, slice]]:
    """Each chunk of :func:`overlapping` with the range of the sorted ``s`` (in memory or on
    disk: read a block at a time from where the chunk before left off) on its intervals
    (``t_i <= s < t_(i+1)``; the last one's: to its end, and beyond it), as
    :func:`~hodyn_cli.algorithms.limits.programme.between` on the whole path takes them."""
    done, path = 0, None
    for path in overlapping(chunks):
        assert path.t is not None
        end = first_from(s, float(path.t[-1]), done)
        if end > done:
            yield path, slice(done, end)
            done = end
    if done < len(s) and path is not None:
        yield path, slice(done, len(s))


def first_from(s: Column | _Part, v: float, start: int) -> int:
    """``np.searchsorted(s, v)`` (s sorted) where it is ``start`` or beyond, s read a block at
    a time from start."""
    for a in range(start, len(s), BLOCK):
        block = s[a : a + BLOCK]
        k = int(np.searchsorted(block, v, side="left"))
        if k < len(block):
            return a + k
    return max(start, len(s))


def _at(chunks: Iterable[Trajectory], s: np.ndarray, r: int) -> np.ndarray:
    """(E, n) ``q^[r](s)`` (s sorted) on the input path, chunk by chunk."""
    out = np.empty((len(s), 0))
    for path, part in _walk(chunks, s):
        if not out.shape[1]:
            out = np.empty((len(s), path.derivatives.shape[-1]))
        out[part] = between(path, s[part], r)
    return out


@dataclass(frozen=True, eq=False, repr=False)
class Table:
    """The input path's arc length at :func:`subdivisions`' points per input interval and its
    end: ``points`` (F, 3), on disk (:class:`~hodyn_cli.algorithms.limits.stored.Stored`,
    read a block at a time), each point's ``s``, arc length ``sigma`` and ``speed`` ``|q'(s)|``
    and ``turned``, the angle (rad) through which the direction ``q' / |q'|`` turns from
    the point before (the columns :data:`S`, :data:`SIGMA`, :data:`SPEED`, :data:`TURNED`;
    rounding's where q' is nearly 0); ``edges`` (B, 2): the first and
    last sigma of each :data:`BLOCK` of the points (:func:`_placed`); ``reverses``: the points i
    (sorted) where the direction ``q' / |q'|`` turns by more than 90 degrees from i to i + 1
    (for :func:`_corners`); ``fastest``: the largest speed; and of the input: its samples,
    first and last times, joints and each joint's ``travel``
    (:func:`~hodyn_cli.algorithms.limits.strays.travel`). Memory: the points where it
    reverses (:class:`Lengths` makes it chunk by chunk; the points were 7 numbers an input sample in
    memory)."""

    points: Stored
    edges: np.ndarray
    reverses: np.ndarray
    fastest: float
    samples: int
    span: tuple[float, float]
    names: tuple[str, ...]
    travel: np.ndarray

    def column(self, a: int, b: int, which: int) -> np.ndarray:
        """One column of the points a .. b-1."""
        return self.points[a:b][:, which]

    def blocks(self) -> Iterator[tuple[int, np.ndarray]]:
        """(a, the points a .. a + BLOCK - 1) in turn."""
        for a in range(0, len(self.points), BLOCK):
            yield a, self.points[a : a + BLOCK]


#: the columns of :attr:`Table.points`
S, SIGMA, SPEED, TURNED = 0, 1, 2, 3


class Lengths:
    """:class:`Table` of a path fed chunk by chunk (:meth:`add`, then :meth:`table`): each
    interval between samples (the last sample of a chunk kept for the next one's first) cut
    into :func:`subdivisions`' sub-intervals, their lengths ``int |q'(s)| ds`` by Gauss-Legendre quadrature
    (:func:`_length`), their sum in order (as on the whole path: the same to the bit)."""

    def __init__(self) -> None:
        self._points = Stored(0, (4,), grows=True)  # (s, each sub-interval's length, speed,
        # the turn into it)
        self._reverses: list[np.ndarray] = []
        self._last: Trajectory | None = None  # the last interval (the end's q')
        self._unit: np.ndarray | None = None  # the direction at the last point so far
        self.samples = 0
        self._first = 0.0
        self._range: np.ndarray | None = None  # (2, n) the lowest and highest positions

    def add(self, chunk: Trajectory) -> None:
        if not chunk.n_samples:
            return
        assert chunk.t is not None
        if self._last is None:
            self._first = float(chunk.t[0])
        self.samples += chunk.n_samples
        q = chunk.derivatives[:, 0]
        seen = np.stack([q.min(axis=0), q.max(axis=0)])
        self._range = seen if self._range is None else np.stack([
            np.minimum(self._range[0], seen[0]), np.maximum(self._range[1], seen[1])])
        path = chunk if self._last is None else _joined(self._last.rows(slice(-1, None)), chunk)
        self._last = path.rows(slice(-2, None))
        if path.n_samples < 2:
            return
        self._add(*_sub_lengths(path))

    def _add(self, s: np.ndarray, lengths: np.ndarray, d1: np.ndarray) -> None:
        """Points at s, the lengths from each to the next, q' there."""
        speed = np.linalg.norm(d1, axis=1)
        unit = d1 / np.maximum(speed, np.finfo(float).tiny)[:, None]
        first = len(self._points)  # (the pairs' index: their first point's)
        if self._unit is not None:
            unit = np.concatenate([self._unit, unit])
            first -= 1
        # (the angle between unit vectors from their chord: accurate where it is small)
        chord = np.linalg.norm(np.diff(unit, axis=0), axis=1)
        turned = 2 * np.arcsin(np.minimum(chord / 2, 1.0))
        if self._unit is None:
            turned = np.concatenate([[0.0], turned])
        self._points.append(np.stack([s, lengths, speed, turned], axis=1))
        self._reverses.append(first + np.flatnonzero(
            np.einsum("ij,ij->i", unit[:-1], unit[1:]) < 0))
        self._unit = unit[-1:]

    def table(self) -> Table:
        """The table (its end: the last sample's q')."""
        end = self._last
        if end is None or end.n_samples < 2:
            raise HodynError("--optimal needs a path of two samples at least")
        assert end.t is not None
        self._add(end.t[-1:], np.zeros(1), between(end, end.t[-1:], 1))
        points, carry, fastest, edges = self._points, 0.0, 0.0, []
        for a in range(0, len(points), BLOCK):  # the lengths' running sum from 0: sigma
            block = points[a : a + BLOCK]  # (carried on from the block before: the same
            # additions in the same order as the whole array's cumsum, :func:`_sweeps`)
            lengths = block[:, SIGMA].copy()
            block[:, SIGMA] = np.cumsum(np.concatenate([[carry], lengths[:-1]]))
            carry = float(block[-1, SIGMA] + lengths[-1])
            fastest = max(fastest, float(block[:, SPEED].max()))
            edges.append(block[[0, -1], SIGMA])
            points.write(a, block)
        assert self._range is not None
        table = Table(points, np.array(edges), np.concatenate(self._reverses), fastest,
                      self.samples, (self._first, float(end.t[-1])), end.joint_names,
                      travel(self._range))
        self._last = None  # (fed no more: a second table would be of nothing)
        return table


def lengths(path: Trajectory | Source) -> Table:
    """The :class:`Table` of a path (chunk by chunk)."""
    lengths = Lengths()
    for chunk in source(path)():
        lengths.add(chunk)
    return lengths.table()


def subdivisions(h: np.ndarray) -> np.ndarray:
    """Each input interval's sub-intervals in the arc length's table: :data:`SUBDIVIDE`, or
    as many as an input at :data:`SHAPE_RATE` has over it where it is coarser (a 20 Hz
    input's 10), so that the table, whose points place the shape's and whose turning places
    the grid's where the path turns sharply (:func:`_grids`), is as fine in time as a 100 Hz
    input's: where a coarser input's table spread each sharp turn over its 25 ms, the grid
    did not follow it. The TriFinger's finger_edu along sweep17's Lissajous curve given at
    20 Hz: its passes' law on 4001 grid points 0.00920871 s, its output 0.00925135 s, 1.11 %
    over toppra's; given at 100 Hz, or at 20 Hz on this table, 4351 points, 0.00915856 s and
    0.00916214 s, 0.14 % (benchmarks/README.md, finger20). (At 100 Hz and finer: 2, the
    same table to the bit; a 100 Hz input's rounded steps kept at 2.) At most
    :data:`MOST_SUBDIVISIONS`: an interval's points are evaluated at once (a 2-sample input
    over 10^4 s would have asked for 2 x 10^6 of them, each GAUSS + 1 points of q').

    >>> subdivisions(np.array([0.001, 0.01, 0.01 * (1 + 1e-9), 0.05, 1e4])).tolist()
    [2, 2, 2, 10, 5461]
    """
    wanted = np.ceil(SUBDIVIDE * SHAPE_RATE * h * (1 - 1e-6))
    return np.clip(wanted, SUBDIVIDE, MOST_SUBDIVISIONS).astype(int)



def _sub_lengths(path: Trajectory) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The starts ``s`` of the :func:`subdivisions`' equal sub-intervals of each interval
    between the path's samples, in order, their lengths ``int |q'(s)| ds`` (Gauss-Legendre,
    as :func:`_length`), and q' (E, n) there: q' at the same points of every interval of as
    many sub-intervals (:func:`~hodyn_cli.algorithms.limits.jets.hermite_at`: the
    interpolant's coefficients made once an interval; point by point, as :func:`_length`
    takes them, the table of the iiwa's cosine at 10^5 samples took 3.9 s, now 0.33 s: the
    same to 5e-15 of its length), :data:`BLOCK` points at a time."""
    nodes, weights = NODES, WEIGHTS
    rows, t = path.derivatives, path.t
    assert t is not None
    h = np.diff(t)
    counts = subdivisions(h)
    first = np.cumsum(counts) - counts  # (each interval's first sub-interval)
    s, lengths = np.empty(counts.sum()), np.empty(counts.sum())
    d1 = np.empty((counts.sum(), rows.shape[-1]))
    for n in distinct(counts):  # (one count on an evenly sampled input)
        intervals = np.flatnonzero(counts == n)
        starts = np.arange(n) / n
        at = np.concatenate([(starts[:, None] + (nodes + 1) / (2 * n)).ravel(), starts])
        step = max(1, BLOCK // len(at))
        for i in range(0, len(intervals), step):
            j = intervals[i : i + step]
            q1 = hermite_at(rows[j], rows[j + 1], h[j], at, 1)
            speed = np.linalg.norm(q1[:, : GAUSS * n], axis=2)
            into = (first[j, None] + np.arange(n)).ravel()
            lengths[into] = (speed.reshape(-1, n, GAUSS) @ weights * (h[j, None] / (2 * n))
                             ).ravel()
            d1[into] = q1[:, GAUSS * n :].reshape(-1, rows.shape[-1])
            s[into] = (t[j, None] + h[j, None] * np.arange(n) / n).ravel()
    return s, lengths, d1


def _length(path: Trajectory, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``int_a^b |q'(s)| ds`` (a, b inside one input interval each; Gauss-Legendre: exact to
    rounding for the Hermite interpolant's ``|q'|`` where it is a polynomial's norm)."""
    nodes, weights = NODES, WEIGHTS
    h = b - a
    out = np.empty(len(h))
    step = BLOCK // GAUSS  # (a block of nodes at a time: the q' at all of them for the
    # whole table were 168 MB and their norm's squares as much at 3 x 10^5 samples)
    for i in range(0, len(h), step):
        at = (a[i : i + step, None] + h[i : i + step, None] * (nodes + 1) / 2).ravel()
        speed = np.linalg.norm(between(path, at, 1), axis=1).reshape(-1, GAUSS)
        out[i : i + step] = speed @ weights * h[i : i + step] / 2
    return out


#: Gauss-Legendre points per arc-length sub-interval, and their nodes and weights on [-1, 1]
#: (made once: ``leggauss`` solves an eigenproblem, 0.44 ms a call, ~1000 calls of
#: :func:`_elapsed` on a small path with many rests)
GAUSS = 5
NODES, WEIGHTS = np.polynomial.legendre.leggauss(GAUSS)
NODES.flags.writeable = WEIGHTS.flags.writeable = False  # (shared by every call)

#: sub-intervals of an input interval at most (:func:`subdivisions`): their q' at GAUSS + 1
#: points each within a block of :data:`BLOCK` points (one interval evaluated at once)
MOST_SUBDIVISIONS = BLOCK // (GAUSS + 1)


def _corners(table: Table, path: Source) -> list[float]:
    """The arc lengths of the rests inside the path where it turns: the directions ``q' /
    |q'|`` just before and just after a run of the table's points at rest (:data:`REST`;
    their q' read from the path again, chunk by chunk) differ, or reverse between two
    points (a rest between them, as between the samples of a coarse input)."""
    F, still = len(table.points), REST * table.fastest
    starts: list[int] = []  # (the runs at rest: their first and last points)
    stops: list[int] = []
    before = 0
    for a, block in table.blocks():
        rest = (block[:, SPEED] < still).astype(int)
        flags = np.diff(np.concatenate([[before], rest]))
        starts.extend(a + np.flatnonzero(flags == 1))
        stops.extend(a + np.flatnonzero(flags == -1) - 1)
        before = int(rest[-1])
    if before:
        stops.append(F - 1)
    runs = [(int(a), int(b)) for a, b in zip(starts, stops, strict=True)
            if a > 0 and b + 1 < F]
    cuts = []
    if runs:
        around = np.array([[a - 1, b + 1] for a, b in runs]).ravel()
        at = table.points.take(around)
        middle = table.points.take(np.array([(a + b) // 2 for a, b in runs]))[:, SIGMA]
        d1 = _at(path(), at[:, S], 1).reshape(len(runs), 2, -1)
        speed = at[:, SPEED].reshape(len(runs), 2)
        for (into, out), (v_into, v_out), sigma in zip(d1, speed, middle, strict=True):
            if np.dot(into / v_into, out / v_out) < TURN:
                cuts.append(float(sigma))
    # a turn back between two points neither at rest (a momentary rest between the
    # input's samples): the direction reverses by more than 90 degrees within one interval
    # and |q'| comes to rest between them (not a sharp turn at speed: Laikago's and HyQ's
    # legs along a 9-harmonic Fourier path at 20 Hz turn by over 90 degrees within 25 ms at
    # 0.59 rad/s, 7 % of their fastest, and were cut there and refused, their output the
    # uniform scaling, 35-63 % slower than toppra's; at 1 kHz the same turn spans 50
    # intervals, uncut)
    i = table.reverses
    read = distinct(np.concatenate([i, i + 1]))  # (the points read, each once, in order)
    points = table.points.take(read)
    this, that = points[np.searchsorted(read, i)], points[np.searchsorted(read, i + 1)]
    moving = (this[:, SPEED] >= still) & (that[:, SPEED] >= still)
    halts = _least_speed(path, this[moving, S], that[moving, S]) < still
    for k, a, b in zip(i[moving][halts], this[moving][halts], that[moving][halts],
                       strict=True):
        j, point = (k, a) if a[SPEED] < b[SPEED] else (k + 1, b)
        if 0 < j < F - 1:
            cuts.append(float(point[SIGMA]))
    return sorted(cuts)


#: :func:`_least_speed`'s samples an interval, and its rounds, each on the two samples'
#: span about the last one's slowest: the slowest of a linear crossing of 0 found within
#: ~1e-6 of the interval's speeds (the span 32 / 16^4 times narrower)
LOOKS, ZOOMS = 33, 4


def _least_speed(path: Source, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The least ``|q'(s)|`` of the path (:data:`Source`) within each interval ``[lo, hi]``
    (disjoint, in order): sampled :data:`LOOKS` times, then :data:`ZOOMS` times again about
    the slowest sample.

    >>> t = np.linspace(0.0, 1.0, 3)
    >>> q = np.stack([t - t**2, 1 - 2 * t, -2 + 0 * t], axis=1)[:, :, None]  # (q' = 0 at 0.5)
    >>> bool(_least_speed(Trajectory(("a",), q, t), np.array([0.25]), np.array([0.9]))[0] < 1e-6)
    True
    """
    least = np.full(len(lo), np.inf)
    u = np.linspace(0.0, 1.0, LOOKS)
    for _ in range(ZOOMS + 1):
        if not len(lo):
            break
        s = lo[:, None] + (hi - lo)[:, None] * u
        speed = np.linalg.norm(_at(source(path)(), s.ravel(), 1), axis=1).reshape(s.shape)
        k, rows = speed.argmin(axis=1), np.arange(len(lo))
        least = np.minimum(least, speed[rows, k])
        lo = s[rows, np.maximum(k - 1, 0)]
        hi = s[rows, np.minimum(k + 1, LOOKS - 1)]
    return least


def arcs(path: Trajectory | Source, points: int, shape_points: int | None = None,
         table: Table | None = None, turning: bool = False,
         finer: Callable[[Arc], tuple[bool, bool]] | None = None,
         coarse: list[Grid] | None = None,
         dense: list[np.ndarray | None] | None = None) -> list[Arc]:
    """The path (times: its parameter s; q, q' at least; whole or its chunks, :data:`Source`)
    cut at its corners, each piece on a
    grid uniform in arc length, ``points`` intervals in all (in proportion to length, at
    least :data:`LEAST` each, and :data:`PIECE` each where ``points`` has them: more in all
    where the path has many corners), its shape through ``shape_points`` points in all
    uniform in arc length and more where it turns sharply (:func:`_targets`;
    at their arc length, exact to the quadrature's rounding: the spline's derivatives are
    those of the path in sigma; ``shape_points`` by default :data:`SHAPE`, or more on a long
    path, at most one per input sample (or per 1 / :data:`SHAPE_RATE` s of a coarser input) and
    per :data:`SPACING` of length). ``table``: the
    path's
    :class:`Table`, where it is made already. ``turning``: each piece's grid denser where
    it turns sharply (:func:`_grids`; a grid asked for, ``--arc-grid``, is uniform: an
    explicit 8 intervals would turn sharply anywhere). The path is read chunk by chunk (memory: a
    chunk, the table and the shape's points), three times more at most (the directions about
    its rests, the shape's points, and the shape held to the path: :func:`off_path`; twice
    more where it is made again, its ends' points doubled, :data:`END_SHAPE`; beyond
    :data:`ON_PATH` then, :class:`Inapplicable`). ``finer``: which of a piece's ends (first,
    last) its grid is finer at (:data:`END`; read from the piece on its uniform grid: its ends' alone);
    ``coarse``: where given, each piece's grid without those finer ends appended to it.
    ``dense``: where given, each piece's spans of arc length (:func:`denser`; None: none)
    where its grid is :data:`DENSER` times as dense (:func:`_spans_finer`), the finer ends'
    cuts too."""
    path = source(path)
    table = table or lengths(path)
    length = float(table.points[-1][SIGMA])
    if not length > 0:
        raise HodynError("--optimal: the path does not move")
    span = float(table.points[-1][S] - table.points[0][S])
    samples = max(table.samples, 1 + int(SHAPE_RATE * span * (1 - 1e-6)))
    shape_points = shape_points or max(SHAPE, min(samples, int(length / SPACING)))
    cuts = [0.0, *_corners(table, path), float(length)]
    pieces, off = _shapes(path, table, cuts, shape_points, points)
    if off.share > ON_PATH:  # (the spline's not-a-knot ends: there, twice the points)
        pieces, off = _shapes(path, table, cuts, shape_points, points, END_SHAPE)
    if off.share > ON_PATH:
        raise Inapplicable(
            f"its spline of the path strays {off.share * table.travel[off.joint]:.3g} from "
            f"it in {table.names[off.joint]} near t = {off.t:.6g} s ({off.share:.2g} of the "
            f"joint's travel, beyond the {ON_PATH:g} the retiming holds it to: hodyn "
            f"validate --path holds the output's samples to {STRAY:g})")
    refined = [(False, False) if finer is None or all(arc.rest) else finer(arc)
               for arc in pieces]
    grids: list[tuple[Grid | None, Grid | None]] = [(None, None)] * len(pieces)
    denser_at = dense or [None] * len(pieces)
    if turning or any(any(end) for end in refined) or any(d is not None for d in denser_at):
        # (else the uniform grids, to the bit)
        grids = _grids(table, cuts, points, [arc.sigma for arc in pieces], refined, turning,
                       denser_at)
    if coarse is not None:
        coarse.extend(arc.sigma if plain is None else plain
                      for arc, (_, plain) in zip(pieces, grids, strict=True))
    return [arc if grid is None else replace(arc, sigma=grid)
            for arc, (grid, _) in zip(pieces, grids, strict=True)]


#: where in each interval between its points the shape is held to the path (:func:`off_path`):
#: the spline's error vanishes at its points, a bump between each two, largest near its middle.
#: The generic quadruped's leg's hairpins, the shape's largest share of a joint's travel off
#: the path by these against the nearest path point to 16 points an interval (validate's
#: search, :mod:`~hodyn_cli.algorithms.verification.stray`): GRADE 0.2 2.7e-5 (1.8e-5: the
#: hairpin's other leg nearer), 0.3 3.6e-5 (3.6e-5), 0.5 0.0075 (0.0080), 0 0.086 (0.105):
#: within 20 %, so the shape is held to half of STRAY (:data:`ON_PATH`); (1/4, 1/2, 3/4)
#: 3.6e-5, 0.0057, 0.086 for 3 times the cost (0.5 s more of CPU on a 10^5-sample path
#: against 0.17 s)
BETWEEN = np.array([0.5])
#: the share of a joint's travel the shape may lie off the path (:func:`off_path`): half of
#: what validate holds an output's samples to, for what its midpoints miss
ON_PATH = STRAY / 2


class OffPath(NamedTuple):
    """How far the shape lies off the path (:func:`off_path`): its largest ``share`` of a
    joint's travel, that ``joint``'s index and the input time ``t`` there."""

    share: float
    joint: int
    t: float


def off_path(path: Source, table: Table, pieces: list[Arc], shaped: Stored,
             rows: list[tuple[int, int, float]]) -> OffPath:
    """How far the shapes of the ``pieces`` lie off the path between their points, as a
    share of each joint's travel (``rows``: each piece's first and last shape points' rows of
    ``shaped``, and its first point's arc length). :func:`arcs` refuses one beyond
    :data:`ON_PATH`: ``hodyn validate --path`` would fail the played motion, which lies on
    the shape. At :data:`BETWEEN` of each interval between its points, the path's
    point at that arc length (the table's s there, :func:`_placed`), one Newton step from it
    towards the foot of the perpendicular from the shape's
    (:func:`~hodyn_cli.algorithms.limits.strays.off`), and the foot itself
    (:func:`~hodyn_cli.algorithms.limits.strays.projected`, between the neighbouring points'
    s) where that step leaves more than half of ``ON_PATH``: the step alone overstated
    the generic quadruped's leg's shape at its hairpin turns twice. Memory: a block's; the
    path read once more."""
    counts = [len(BETWEEN) * (last - first) for first, last, _ in rows]
    target, done = Stored(sum(counts)), 0
    for first, last, _ in rows:
        for a in range(first, last, BLOCK):  # (each block's last point the next's first)
            knots = shaped[a : min(a + BLOCK, last) + 1][:, 0]
            inside = (knots[:-1, None] + np.diff(knots)[:, None] * BETWEEN).ravel()
            target.write(done, inside)
            done += len(inside)
    shape, done = Stored(len(target), (len(table.names),)), 0
    for arc, (_, _, lo), count in zip(pieces, rows, counts, strict=True):
        for a in range(done, done + count, BLOCK):
            shape.write(a, arc.jet(target[a : min(a + BLOCK, done + count)] - lo, 1)[:, 0])
        done += count
    placed = _placed(table, target)
    worst, at = 0.0, (0, 0.0)
    for chunk, part in _walk(path(), _Part(placed, 0, len(placed), slice(AT, AT + 1))):
        assert chunk.t is not None
        s, q = placed[part][:, AT], shape[part]
        jet = between(chunk, s)
        d2 = jet[:, 2] if jet.shape[1] > 2 else np.zeros_like(q)
        share = np.abs(off(q - jet[:, 0], jet[:, 1], d2)) / table.travel
        far = np.flatnonzero(share.max(axis=1) > ON_PATH / 2)
        if len(far):
            bracket = np.concatenate([chunk.t[:1], s, chunk.t[-1:]])
            foot = projected(chunk, q[far], bracket[far], bracket[far + 2], s[far])
            share[far] = np.minimum(share[far], np.abs(between(chunk, foot, 0) - q[far])
                                    / table.travel)
        i, j = np.unravel_index(np.argmax(share), share.shape)
        if share[i, j] > worst:
            worst, at = float(share[i, j]), (int(j), float(s[i]))
    return OffPath(worst, *at)


def _shapes(path: Source, table: Table, cuts: list[float], shape_points: int, points: int,
            doubled: int = 0) -> tuple[list[Arc], OffPath]:
    """:func:`arcs`' pieces between the ``cuts`` on their uniform grids (``points``
    intervals in all), their shapes through the points of :func:`_targets` (and, ``doubled``
    above 0, a point more within each of a piece's first and last ``doubled`` intervals:
    :func:`_ends_doubled`), and how far those lie off the path (:func:`off_path`)."""
    length = float(table.points[-1][SIGMA])
    spans, target = _targets(table, cuts, shape_points)
    if doubled:
        spans, target = _ends_doubled(spans, target, doubled)
    placed = _placed(table, target)  # (target sorted: the pieces in turn)
    del target
    stops = np.cumsum([count for _, _, count in spans])  # (each piece's first and last)
    ends = np.ravel([[stop - count, stop - 1] for stop, (_, _, count) in zip(stops, spans,
                                                                              strict=True)])
    shaped, speed = _shape_points(path, placed, ends, len(table.names))
    del placed
    still = REST * table.fastest
    pieces = []
    for i, (lo, hi, _) in enumerate(spans):
        first, last = int(ends[2 * i]), int(ends[2 * i + 1])
        for row, at in ((first, lo), (last, hi)):  # (the piece's ends at its cuts exactly)
            point = shaped[row]
            point[0] = at
            shaped.write(row, point)
        positions = _Part(shaped, first, last + 1, slice(1, None))
        knots, blocks = blocks_of(_Part(shaped, first, last + 1, slice(0, 1), lo),
                                  positions, DEGREE)
        coefficients = Stored(last + 1 - first, (len(table.names),))  # (not-a-knot: one a
        done = 0  # point, each block's solved where it is the block's middle)
        for block in blocks:
            coefficients.write(done, block)
            done += len(block)
        fine = max(LEAST, round(points * (hi - lo) / length), min(points, PIECE))
        pieces.append(Arc(Spaced(0.0, hi - lo, fine + 1), knots, coefficients,
                          (bool(speed[2 * i] < still), bool(speed[2 * i + 1] < still)),
                          _still(positions)))
    return pieces, off_path(path, table, pieces, shaped, [
        (int(ends[2 * i]), int(ends[2 * i + 1]), lo) for i, (lo, _, _) in enumerate(spans)])


#: the intervals at each end of a piece whose shape points :func:`arcs` doubles where its
#: shape strays (:func:`off_path`): a not-a-knot spline's error is largest in its end
#: intervals. The Kinova arm on ANYmal along a 9-harmonic Fourier path at 100 Hz, moving at
#: its ends: 4.3e-4 of its fifth joint's travel off the path in its first interval (6.4e-5
#: rad; the output failed validate --path), 8.2e-6 with 2 intervals doubled, 4.4e-6 (the
#: inside's) with 4 or 8, or 4 tripled
END_SHAPE = 4


def _ends_doubled(spans: list[tuple[float, float, int]], target: Stored, ends: int
                  ) -> tuple[list[tuple[float, float, int]], Stored]:
    """The pieces' shape points ``target`` (their ``spans``: lo, hi, count) with the middle
    of each of a piece's first and last ``ends`` intervals added (fewer on a short piece),
    a block at a time.

    >>> points = Stored(9)
    >>> points.write(0, np.array([0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.0, 1.5, 2.0]))
    >>> spans, doubled = _ends_doubled([(0.0, 1.0, 6), (1.0, 2.0, 3)], points, 1)
    >>> spans, doubled[:].round(2).tolist()  # doctest: +NORMALIZE_WHITESPACE
    ([(0.0, 1.0, 8), (1.0, 2.0, 5)],
     [0.0, 0.1, 0.2, 0.4, 0.6, 0.8, 0.9, 1.0, 1.0, 1.25, 1.5, 1.75, 2.0])
    """
    counts = [count + 2 * min(ends, (count - 1) // 2) for _, _, count in spans]
    out, done, made = Stored(sum(counts)), 0, 0
    for (_, _, count), more in zip(spans, counts, strict=True):
        e = (more - count) // 2
        for a, b, halved in ((0, e, True), (e, count - e - 1, False), (count - e - 1,
                                                                          count - 1, True)):
            for c in range(a, b, BLOCK):
                d = min(c + BLOCK, b)
                points = target[done + c : done + d + 1]
                if halved:
                    points = np.stack([points[:-1], (points[:-1] + points[1:]) / 2], axis=1)
                out.write(made, points.ravel()[: 2 * (d - c) if halved else d - c])
                made += 2 * (d - c) if halved else d - c
        out.write(made, target[done + count - 1 : done + count])
        made, done = made + 1, done + count
    return [(lo, hi, more) for (lo, hi, _), more in zip(spans, counts, strict=True)], out


def _grids(table: Table, cuts: list[float], points: int, uniform: list[Grid],
           ends: list[tuple[bool, bool]], turning: bool, dense: list[np.ndarray | None]
           ) -> list[tuple[Grid | None, Grid | None]]:
    """Each piece's grid (from 0 at its first cut) where the path turns sharply along it
    (``turning``) or its ``ends`` (first, last) are finer, and that grid without its finer
    ends: ``points`` intervals in all uniform in arc length, and where it turns one every
    ``GRID_TURNS.angle`` of its turning where that is more than ``sharp`` times as dense (at
    most ``densest`` times; the turning adds ``more`` times ``points`` at most in all:
    :func:`_targets`' measure with :data:`GRID_TURNS`), else (or where that is coarser) its
    ``uniform`` grid; its END intervals next to each end in ``ends`` cut finer
    (:func:`_ends_finer`) before its points are averaged (:func:`_calmed`, once: uniform
    points are their own average, to rounding), then its intervals within its ``dense``
    spans (:func:`_spans_finer`: :data:`ROWS_KEPT`) and averaged again; None where none
    of these (the uniform grid, to the bit). Made a block at a time, and a long path's on
    disk (:func:`_ended`): in memory, a block's points and every
    :data:`~hodyn_cli.algorithms.limits.stored.TAKEN`-th point."""
    turned: list[bool] = []
    spans, target = _targets(table, cuts, points, GRID_TURNS, turned)
    grids: list[tuple[Grid | None, Grid | None]] = []
    first = 0
    for (lo, hi, count), turns, even, finer, within in zip(spans, turned, uniform, ends, dense,
                                                          strict=True):
        grid = plain = made = None
        if turns and turning and count >= len(even):
            made = _kept(count, ((a, target[first + a : first + min(a + BLOCK, count)] - lo)
                                 for a in range(0, count, BLOCK)))
            grid = plain = _calmed(made, hi - lo)
        if any(finer) or within is not None:
            points_of: Column | Grid = even if made is None else made
            made = _ends_finer(points_of, finer) if any(finer) else _kept(len(points_of), (
                (a, points_of[a : a + BLOCK]) for a in range(0, len(points_of), BLOCK)))
            grid = _calmed(made, hi - lo)
            if within is not None:
                grid = _calmed(_spans_finer(grid, within), hi - lo)
        grids.append((grid, plain))
        first += count
    return grids


def _calmed(points: Column, end: float) -> np.ndarray | StoredGrid:
    """``points`` averaged by :data:`CALMING` moving averages over :data:`GRID_CALM`
    intervals either side (their ends kept: odd), so that their steps change smoothly, from
    0 to ``end`` exactly (:func:`_ended`)."""
    n = len(points)
    half = float(min(GRID_CALM, (n - 3) / 2))
    for _ in range(CALMING):
        points = _kept(n, _swept(points, half, odd=True))
    return _ended(points, end)


def _ends_finer(points: Column | Grid, ends: tuple[bool, bool]) -> Column:
    """``points`` (at least 5) with the :data:`END` intervals next to each end in ``ends``
    (first, last) cut into :data:`END_FINER` each (fewer intervals on a grid of fewer than 4
    END), a block at a time (memory: a block's)."""
    M = len(points)
    n = min(END, (M - 1) // 4)
    first, last = (n if ends[0] else 0), (M - 1 - n if ends[1] else M - 1)

    def near_ends(a: int, at: np.ndarray) -> np.ndarray:
        interval = a + np.arange(len(at) - 1)
        return (interval < first) | (interval >= last)

    return _cut(points, END_FINER, near_ends)


def _spans_finer(points: Column | Grid, spans: np.ndarray) -> Column:
    """``points`` with each interval whose middle lies within one of ``spans`` ((k, 2),
    sorted, apart: :func:`denser`) cut into :data:`DENSER`, a block at a time (memory: a
    block's)."""

    def inside(a: int, at: np.ndarray) -> np.ndarray:
        middle = (at[:-1] + at[1:]) / 2
        k = np.searchsorted(spans[:, 0], middle, side="right") - 1
        return (k >= 0) & (middle <= spans[np.maximum(k, 0), 1])

    return _cut(points, DENSER, inside)


def _cut(points: Column | Grid, parts: int,
         where: Callable[[int, np.ndarray], np.ndarray]) -> Column:
    """``points`` with each interval that ``where(a, at)`` picks (``at``: points a .. a +
    BLOCK, the next block's first too; one bool an interval) cut into ``parts`` equal ones,
    a block at a time (memory: a block's; in memory where the result is one block,
    :func:`_kept`'s)."""
    M = len(points)
    fractions = np.arange(parts) / parts

    def read(a: int) -> np.ndarray:
        return np.asarray(points[a : min(a + BLOCK + 1, M)], dtype=float)

    cut = sum(int(where(a, read(a)).sum()) for a in range(0, M - 1, BLOCK))

    def blocks() -> Iterator[tuple[int, np.ndarray]]:
        at = 0
        for a in range(0, M - 1, BLOCK):
            block = read(a)
            # (an interval not cut: its first point alone)
            made = (block[:-1, None] + np.diff(block)[:, None] * fractions)[
                where(a, block)[:, None] | (fractions == 0)]
            yield at, made
            at += len(made)
        yield at, np.asarray(points[M - 1 : M], dtype=float)

    count = M + (parts - 1) * cut
    made = _stored(count, blocks())
    return made[:] if count <= BLOCK else made


def _ended(points: Column, end: float) -> np.ndarray | StoredGrid:
    """A turning piece's grid: ``points`` from 0 to ``end`` exactly at its cuts, in memory
    or, where they are on disk (a long path's), read from there (:class:`StoredGrid`)."""
    if isinstance(points, Stored) and points.on_disk:
        points.write(0, np.zeros(1))
        points.write(len(points) - 1, np.array([end]))
        return StoredGrid(points)
    grid = np.asarray(points[:], dtype=float)
    grid[0], grid[-1] = 0.0, end
    return grid


def _measure(table: Table, shape_points: int, scale: float = 1.0,
             turns: Turns | None = None
             ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]]:
    """(sigma, tau, extra, spacing) at the table's points a block at a time (each block led
    by the one before's last point): tau counts the shape points placed up to each point,
    ``shape_points`` uniform over the arc length and, where the path turns by more than
    ``turns.angle`` between two of those, one every angle of its turning instead, at most
    ``turns.densest`` times as many there (:func:`_targets`); ``extra``: what the turning
    (and grading) added to tau up to each point, times ``scale``; ``spacing``: where
    ``turns.grade``, the graded spacing at each point (:func:`_graded`: tau's increments
    from it, :func:`_inverse`), else None. ``turns``: the shape points' (by default: one
    every :data:`ANGLE`, at most :data:`DENSEST` times as dense, graded by :data:`GRADE`) or
    the grid's (:data:`GRID_TURNS`)."""
    turns = turns or Turns(ANGLE, DENSEST, grade=GRADE)
    graded = _graded(table, shape_points, scale, turns) if turns.grade else None
    tau, extra = 0.0, 0.0
    for a, sigma, uniform, more in _wanted(table, shape_points, scale, turns):
        spacing = None
        if graded is not None:
            spacing = graded[a : a + len(sigma)]
            more = _increments(np.diff(sigma), spacing[:-1], spacing[1:]) - uniform
        # (carried on from the block before: the same additions in the same order as the
        # whole table's, Lengths.table; the targets are then the same to the bit)
        measure = np.cumsum(np.concatenate([[tau], uniform + more]))  # (at the point before)
        added = np.cumsum(np.concatenate([[extra], more]))
        tau, extra = float(measure[-1]), float(added[-1])
        yield sigma, measure, added, spacing


def _wanted(table: Table, shape_points: int, scale: float, turns: Turns
            ) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
    """(a, sigma, uniform, more) a block of the table at a time (sigma: its points a ..,
    led by the block before's last): the shape points each interval has uniform in arc
    length, and those its turning adds (:func:`_measure`, ungraded)."""
    length = float(table.points[-1][SIGMA])
    per_sigma, still = shape_points / length, REST * table.fastest
    before = None
    for a, block in table.blocks():
        sigma, speed, turned = block[:, SIGMA], block[:, SPEED], block[1:, TURNED]
        if before is not None:
            sigma, speed = np.concatenate([before[:1], sigma]), np.concatenate([before[1:],
                                                                                 speed])
            turned, a = block[:, TURNED], a - 1
        uniform = np.diff(sigma) * per_sigma
        moving = (speed[:-1] >= still) & (speed[1:] >= still)
        wanted = np.where(moving, turned / turns.angle, 0.0)
        more = np.where(wanted >= turns.sharp * uniform, np.clip(
            wanted, uniform, turns.densest * uniform), uniform) - uniform
        if scale != 1.0:
            more *= scale
        before = np.array([sigma[-1], speed[-1]])
        yield a, sigma, uniform, more


def _graded(table: Table, shape_points: int, scale: float, turns: Turns) -> Stored:
    """(F,) on disk: the shape points' spacing at each table point, graded: the least of
    each interval's own (its length over its points, :func:`_wanted`) plus ``turns.grade``
    times its distance from the point, ``min_j h_j + grade |sigma - sigma_j|``, so that it
    changes by at most ``grade`` of itself over one spacing and nowhere exceeds what the
    turning asks. Two sweeps of running minima (forward, then backward over the blocks in
    reverse), a block at a time."""
    r, F = turns.grade, len(table.points)
    forward, behind = Stored(F), Stored(F)  # (the forward sweep; each interval's h + r sigma
    carry = np.inf  # from its first point)
    for a, sigma, uniform, more in _wanted(table, shape_points, scale, turns):
        length, count = np.diff(sigma), uniform + more
        own = np.divide(length, count, out=np.full(len(length), np.inf), where=count > 0)
        leftward = np.minimum.accumulate(np.concatenate([[carry], own - r * sigma[1:]]))
        forward.write(a, leftward + r * sigma)
        behind.write(a, np.concatenate([own + r * sigma[:-1], [np.inf]]))
        carry = float(leftward[-1])
    out, carry = Stored(F), np.inf
    for a in reversed(range(0, F, BLOCK)):
        b = min(a + BLOCK, F)
        sigma = table.column(a, b, SIGMA)
        rightward = np.minimum.accumulate(np.concatenate([behind[a:b], [carry]])[::-1])[::-1]
        out.write(a, np.minimum(forward[a:b], rightward[:-1] - r * sigma))
        carry = float(rightward[0])
    return out


def _increments(length: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The shape points over intervals of ``length`` whose spacing goes linearly from ``a``
    to ``b``: the integral of 1 / spacing, ``length log(b / a) / (b - a)``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.log1p((b - a) / a) / (b - a)
    return length * np.where(b == a, 1 / a, ratio)


def _inverse(tau: np.ndarray, measure: np.ndarray, sigma: np.ndarray, spacing: np.ndarray
             ) -> np.ndarray:
    """The arc lengths of the measure's values ``tau`` (sorted, within ``measure``'s) on
    the table's points ``sigma`` (``measure`` and ``spacing`` at each): within an interval
    the spacing linear in sigma, ``h = a + s (sigma - sigma_0)``, so that ``sigma = sigma_0
    + a (exp(s (tau - tau_0)) - 1) / s`` (:func:`_increments`' inverse)."""
    i = np.clip(np.searchsorted(measure, tau, side="right") - 1, 0, len(sigma) - 2)
    a, length = spacing[i], sigma[i + 1] - sigma[i]
    slope = np.divide(spacing[i + 1] - a, length, out=np.zeros(len(i)), where=length > 0)
    step = tau - measure[i]
    with np.errstate(divide="ignore", invalid="ignore"):
        curved = a * np.expm1(slope * step) / slope
    return np.minimum(sigma[i] + np.where(slope == 0, a * step, curved), sigma[i + 1])


def _targets(table: Table, cuts: list[float], shape_points: int,
             turns: Turns | None = None, turned: list[bool] | None = None
             ) -> tuple[list[tuple[float, float, int]], Stored]:
    """The pieces between the ``cuts`` (lo, hi, their shape points' count) and the shape
    points' arc lengths (sorted, on disk: 8 bytes a point): uniform in arc length,
    ``shape_points`` in all, and uniform in the measure of :func:`_measure` in
    each piece where the path turns by more than :data:`ANGLE` between two of those (as
    dense as the arc length spreads ``shape_points`` everywhere, denser where the path turns
    sharply). The ASR two-link arm's Fourier path nearly stops and turns through ~0.003 rad
    of arc at |q'| 0.05 rad/s, where 400 points uniform in arc length, 0.0115 rad apart,
    made the degree-7 spline ring, its q_sss 17-30 times the input's. A piece that turns
    less (a point-to-point leg: a line) keeps the uniform points to the bit. The turning
    adds ``shape_points`` at most in all (scaled down where it would add more: a path
    turning sharply everywhere), so the shape's knots in memory stay within two numbers an
    input sample (:data:`MOST_SAMPLES`). ``turns``: :func:`_measure`'s; ``turned``: where
    given, whether each piece's points follow its turning appended to it (else uniform)."""
    more = 1.0 if turns is None else turns.more
    edges, scale, most = np.asarray(cuts), 1.0, more * shape_points * (1 + 1e-9)

    def at_cuts() -> np.ndarray:  # (tau and extra at each cut)
        at = np.zeros((len(cuts), 2))
        for sigma, tau, extra, _ in _measure(table, shape_points, scale, turns):
            inside = (edges >= sigma[0]) & (edges <= sigma[-1])
            at[inside] = np.stack([np.interp(edges[inside], sigma, tau),
                                   np.interp(edges[inside], sigma, extra)], axis=1)
        return at

    at, elasticity, before = at_cuts(), 1.0, None
    for _ in range(SCALINGS):  # (more passes where the turning adds too many)
        if at[-1, 1] <= most:
            break
        if before is not None:  # (graded, the extra falls more slowly: its secant's)
            elasticity = np.log(at[-1, 1] / before[1]) / np.log(scale / before[0])
        before = (scale, float(at[-1, 1]))
        scale *= (most / at[-1, 1]) ** (1 / elasticity)  # (linear: exact, one pass)
        at = at_cuts()
    length = float(table.points[-1][SIGMA])
    spans, turning = [], []
    for lo, hi, (a, e), (b, f) in zip(cuts[:-1], cuts[1:], at[:-1], at[1:], strict=True):
        turning.append(f - e >= 0.5)  # (a shape point more at least)
        uniform = shape_points * (hi - lo) / length
        spans.append((lo, hi, max(LEAST, round(b - a if turning[-1] else uniform)) + 1))
    if turned is not None:
        turned.extend(turning)
    # each piece's points uniform in arc length or in tau from its first cut to its last
    # (np.linspace's, a block at a time)
    target, wanted = Stored(sum(count for _, _, count in spans)), None
    if any(turning):
        wanted = Stored(len(target))
    done = 0
    for (lo, hi, count), (a, _), (b, _), turned in zip(spans, at[:-1], at[1:], turning,
                                                       strict=True):
        grid, into = (Spaced(a, b, count), wanted) if turned else (Spaced(lo, hi, count),
                                                                   target)
        assert into is not None
        for c in range(0, count, BLOCK):
            into.write(done + c, grid[c : c + BLOCK])
        done += count
    if wanted is None:
        return spans, target
    # tau to sigma where it turns, one pass over the table (tau and the pieces rise along
    # the path)
    pieces = np.cumsum([0] + [count for *_, count in spans])
    c = 0
    for sigma, tau, _, spacing in _measure(table, shape_points, scale, turns):
        while c < len(target):
            k = int(np.searchsorted(pieces, c, side="right")) - 1
            if not turning[k]:
                c = int(pieces[k + 1])
                continue
            chunk = wanted[c : min(c + BLOCK, int(pieces[k + 1]))]
            n = int(np.searchsorted(chunk, tau[-1], side="right"))
            if n == 0:
                break
            target.write(c, np.interp(chunk[:n], tau, sigma) if spacing is None
                         else _inverse(chunk[:n], tau, sigma, spacing))
            c += n
    if c < len(target):  # (rounding past the last point: the path's end)
        target.write(c, np.full(len(target) - c, length))
    return spans, target


@dataclass(frozen=True, eq=False, repr=False)
class _Part:
    """Rows first .. stop-1 of a stored array, its ``columns``, less ``offset``: a piece's
    shape points for :func:`~hodyn_cli.algorithms.limits.bsplines.blocks_of` (the arc
    length a 1-D column, the positions (E, n)), read a block at a time."""

    rows: Stored
    first: int
    stop: int
    columns: slice
    offset: float = 0.0

    def __len__(self) -> int:
        return self.stop - self.first

    def __getitem__(self, key: slice) -> np.ndarray:
        a, b, step = key.indices(len(self))
        assert step == 1
        # (a block of rows at a time: the shape's knots are its arc lengths, one column of
        # 1 + n; all the rows read at once were 64 bytes a shape point, +122 MB at 2 x 10^6)
        start, stop = self.first + a, self.first + max(a, b)
        values = np.empty((stop - start, len(range(*self.columns.indices(self.rows.shape[1])))))
        for i in range(start, stop, BLOCK):  # (copied out: a view would keep its block's rows)
            values[i - start : i - start + BLOCK] = self.rows[i : min(i + BLOCK, stop)][
                :, self.columns]
        if self.columns.stop == 1:
            values = values[:, 0]
        return values - self.offset if self.offset else values


def _placed(table: Table, target: Column) -> Stored:
    """(E, 3) on disk (:data:`PLACED`'s columns): s at the arc lengths ``target`` (sorted;
    in memory or on disk): ``np.interp(target, sigma, s)`` over the whole table, to the bit,
    and the s and sigma of the table's point before each (the last at or before it,
    :func:`_length` goes on from there; the last interval's first at the end), a
    :data:`BLOCK` of targets at a time: the point before each counted block by block of the
    table (the points at or below it; the blocks wholly below it by their ``edges``, those
    it falls in read), its two points then read
    (:meth:`~hodyn_cli.algorithms.limits.stored.Stored.take`) and numpy's formula applied
    (``fp[j]`` where ``x == xp[j]``, the slope from ``j + 1`` where that from j is NaN).
    Memory: a block's (the targets, the points before them and their s were 5 numbers a
    shape point, ~one an input sample, in memory)."""
    F, E = len(table.points), len(target)
    sizes = np.minimum(BLOCK, F - BLOCK * np.arange(len(table.edges)))
    below = np.concatenate([[0], np.cumsum(sizes)])  # (the points in the blocks before each)
    out = Stored(E, (3,))
    for c in range(0, E, BLOCK):
        x = target[c : c + BLOCK]
        # (the blocks ending at or before the first target count wholly for every target,
        # those starting beyond the last not at all: only the blocks between are read, so
        # the cost is linear in the table, not its blocks times the targets')
        k0 = int(np.searchsorted(table.edges[:, 1], x[0], side="right"))
        k1 = max(k0, int(np.searchsorted(table.edges[:, 0], x[-1], side="right")))
        j = np.full(len(x), below[k0], dtype=int)  # (the points at or below each, less one)
        for k in range(k0, k1):
            (first, last), size = table.edges[k], int(sizes[k])
            lo, hi = np.searchsorted(x, [first, last], side="left")
            if lo < hi:  # (the targets within the block: counted in it)
                sigma = table.points[k * BLOCK : k * BLOCK + size][:, SIGMA]
                j[lo:hi] += np.searchsorted(sigma, x[lo:hi], side="right")
            j[hi:] += size  # (those at or beyond its last point: all of it)
        j -= 1
        i = np.clip(j, 0, F - 2)
        left, right = table.points.take(i), table.points.take(i + 1)
        (f0, x0), (f1, x1) = left[:, [S, SIGMA]].T, right[:, [S, SIGMA]].T
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = (f1 - f0) / (x1 - x0)
            y = slope * (x - x0) + f0
            nan = np.isnan(y)
            y[nan] = slope[nan] * (x[nan] - x1[nan]) + f1[nan]
        y = np.where(np.isnan(y) & nan & (f0 == f1), f0, y)
        y = np.where(x == x0, f0, y)
        out.write(c, np.stack([np.where(j >= F - 1, f1, np.where(j < 0, f0, y)), f0, x0],
                              axis=1))
    return out


#: the columns of :func:`_placed`'s rows: the target's s, and the s and sigma of the table's
#: point before it
AT, BEFORE_S, BEFORE_SIGMA = 0, 1, 2


def _still(positions: _Part) -> np.ndarray:
    """(n,) each joint's position where it does not move along the piece (its shape points
    within :data:`STILL` of each other: the Hermite interpolation's rounding), NaN where it
    moves. A still joint is played exactly there with derivatives 0 (:meth:`Arc.jet`), not
    the spline's value, which rounds in its last digit from point to point: the output's
    Hermite interpolation between the played grid points made that q^(4) ~3e-3 on the
    Panda's 10 kHz output, where ``hodyn validate`` judges each joint against its own
    largest value, and failed the point-to-point paths of the Panda and a 2R arm with a
    still joint at every smoothing (the windows' law then, 8 % to 2x as long)."""
    low = np.full(positions.rows.shape[1] - 1, np.inf)
    high = -low
    for a in range(0, len(positions), BLOCK):
        rows = positions[a : a + BLOCK]
        low, high = np.minimum(low, rows.min(axis=0)), np.maximum(high, rows.max(axis=0))
    still = high - low <= STILL * np.maximum(1.0, np.maximum(np.abs(low), np.abs(high)))
    return np.where(still, (low + high) / 2, np.nan)


#: shape points of a joint this close (relative to its magnitude, 1 at least) are a joint that
#: does not move (:func:`_still`)
STILL = 64 * np.finfo(float).eps


def _shape_points(path: Source, placed: Stored, ends: np.ndarray, joints: int
                  ) -> tuple[Stored, np.ndarray]:
    """((E, 1 + n) on disk: each sorted s's own arc length (from the table's point before
    it, :func:`_placed`'s rows: its s and sigma, :func:`_length` on to it) and the path's
    positions there; ``|q'|`` at the points ``ends`` (sorted indices of s)): one pass over
    the path, chunk by chunk, reading the rows of the s in each chunk."""
    shaped, speed = Stored(len(placed), (1 + joints,)), np.empty(len(ends))
    for chunk, part in _walk(path(), _Part(placed, 0, len(placed), slice(AT, AT + 1))):
        rows = placed[part]
        s = rows[:, AT]
        shaped.write(part.start, np.concatenate([
            (rows[:, BEFORE_SIGMA] + _length(chunk, rows[:, BEFORE_S], s))[:, None],
            between(chunk, s, 0)], axis=1))
        mine = (ends >= part.start) & (ends < part.stop)
        speed[mine] = np.linalg.norm(between(chunk, s[ends[mine] - part.start], 1), axis=1)
    return shaped, speed


#: the degree of the path's shape q(sigma): its derivatives to the 6th are continuous
DEGREE = 7
#: the most orders of an input (q .. q^(ORDERS-1)) the played motion carries: q^(6) needs the
#: law's x^(5), the quintic spline's last (piecewise constant) derivative
ORDERS = 7


def inapplicable(limits: list[PathLimit]) -> str | None:
    """Why a limit is not for this solver, in a user's words (None: every limit is affine in
    (u, x), or a velocity's ``c sqrt(x)`` within a band about 0: what :func:`rows` takes).
    Torque rates, jerk and friction are not."""
    for limit in limits:
        monomials, label = set(limit.monomials), limit.quantity.label
        if limit.friction is not None:
            return f"the {label} limits hold friction, not affine in the path speed"
        if monomials == {(1,)}:
            if np.any(limit.lower > 0) or np.any(limit.upper < 0):
                return f"a {label} band leaves out 0 (standing still)"
        elif not monomials <= _AFFINE:
            return f"the {label} limits are not affine in the path speed"
    return None


class Inapplicable(HodynError):
    """A limit that is not for this solver (:func:`inapplicable`: the message says which)."""


@dataclass(frozen=True, eq=False, repr=False)
class Rows:
    """The limits at each grid point as rows ``alpha u + beta x <= gamma`` (M, m), and the
    upper bound of x alone (M,) (velocities; +inf where none)."""

    alpha: np.ndarray
    beta: np.ndarray
    gamma: np.ndarray
    top: np.ndarray


def rows(limits: list[PathLimit]) -> Rows:
    """The rows of the limits that :func:`inapplicable` passes (their coefficients on the path
    in sigma)."""
    alpha, beta, gamma, tops = [], [], [], []
    for limit in limits:
        coef = {m: limit.coefficients[..., i] for i, m in enumerate(limit.monomials)}
        M = limit.coefficients.shape[0]
        lower, upper = np.broadcast_to(limit.lower, (M, len(limit.joints))), np.broadcast_to(
            limit.upper, (M, len(limit.joints)))
        if set(coef) == {(1,)}:  # |c| sqrt(x) within the band: x <= (bound / c)^2
            c = coef[(1,)]
            bound = np.where(c > 0, upper, -lower) / np.where(c != 0, np.abs(c), np.nan)
            tops.append(np.nan_to_num(bound**2, nan=np.inf).min(axis=1))
            continue
        zero = np.zeros((M, len(limit.joints)))
        a, b, c = coef.get((2,), zero), coef.get((1, 1), zero), coef.get((), zero)
        keep = np.isfinite(upper).all(axis=0)
        for sign, bound in ((1.0, upper), (-1.0, -lower)):
            alpha.append(sign * a[:, keep])
            beta.append(sign * b[:, keep])
            gamma.append(bound[:, keep] - sign * c[:, keep])
    M = len(limits[0].coefficients) if limits else 0
    top = np.min(np.stack(tops), axis=0) if tops else np.full(M, np.inf)
    cat = (lambda v: np.concatenate(v, axis=1)) if alpha else (lambda v: np.zeros((M, 0)))
    return Rows(cat(alpha), cat(beta), cat(gamma), top)


#: pairs of rows that numpy's :func:`_bounds` (the backend's reference, not the kernel's) takes at
#: once, at most: a block of PAIRS // m^2 points
#: of m rows (167 points of the iiwa's 14 rows, 41 of 28; of those, its rows of alpha > 0
#: and < 0 pair), a block that stays in the cache (the least CPU of 64-256 points, and of
#: 32-128 for 28 rows)
PAIRS = 1 << 15


#: :func:`_bounds`' (lower, upper) of the rows at each point
Bounds = tuple[np.ndarray, np.ndarray]


def _static(r: Rows, bounds: Bounds | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) (M,): the x for which some u satisfies every row at the point and x is
    within the top: :func:`_bounds`, or ``bounds`` where made before for rows with the
    same alpha, beta and gamma (the top alone may differ: the rounds' ceilings), upper
    then at most the top (a min: in any order the same)."""
    lo, hi = _bounds(r) if bounds is None else bounds
    return lo, np.minimum(r.top, hi)


def _bounds(r: Rows) -> Bounds:
    """(lower, upper) (M,): the x for which some u satisfies every row at the point (the
    pairs of rows with u coefficients of opposite signs, and the rows without u; x >= 0),
    whatever the top. The pairs by the backend's ``reach_bounds`` (the compiled kernel a
    pair at a time; numpy's reference a block of points at a time, :data:`PAIRS`): the
    same bounds, each the same products, as a row at a time with all rows (a numpy loop
    over the rows, O(M m^2) over the whole grid at each row: 5-8 % of a 10^5-sample path's
    CPU, benchmarks/README.md, long6; numpy's blocks, 1.2 s of the Panda's 10^5-sample
    Fourier path, its 28 rows at 3 x 10^5 points, branch panda21); a min and a max, in any
    order the same."""
    lo, hi = np.zeros(len(r.top)), np.full(len(r.top), np.inf)
    tiny = 1e-12 * np.abs(r.alpha).max(initial=1.0)
    free = np.abs(r.alpha) <= tiny
    with np.errstate(divide="ignore", invalid="ignore"):
        single = r.gamma / r.beta
    hi = np.minimum(hi, np.where(free & (r.beta > 0), single, np.inf).min(axis=1, initial=np.inf))
    lo = np.maximum(lo, np.where(free & (r.beta < 0), single, -np.inf).max(axis=1,
                                                                           initial=-np.inf))
    backends.current().reach_bounds(r.alpha, r.beta, r.gamma, r.alpha > tiny,
                                    r.alpha < -tiny, lo, hi, PAIRS)
    return lo, hi


def interpolated(r: Rows, delta: np.ndarray) -> Rows:
    """The rows of each grid interval's two ends on its one u (toppra's interpolation
    discretisation): at point i its own rows and those of point i+1 at ``x_(i+1) = x_i + 2
    Delta_i u``, ``(alpha_(i+1) + 2 Delta_i beta_(i+1)) u + beta_(i+1) x_i <= gamma_(i+1)``
    (the last point: its own rows twice; ``delta`` (M-1,): the grid's steps). Collocation
    (point i's rows alone) lets u jump wherever a row's u coefficient is near 0 (a
    zero-inertia point: the row bounds x alone there): the Hextilt's flying arm's cosine
    braked onto one grid point at x 40 between neighbours at 73 and 75 (u -3248, then
    +3414), which no smooth played law follows (its torque 1.37 times the 1 N m limit
    there); the G1's and the iCub's arms' cosines were 1.5 % and 1.4 % slower than toppra
    for such points, 0.06 % with these rows (benchmarks/README.md, branch fresh6b)."""
    d2 = 2 * np.asarray(delta)[:, None]

    def far(own: np.ndarray, next_: np.ndarray) -> np.ndarray:
        return np.concatenate([next_, own[-1:]], axis=0)

    alpha = far(r.alpha, r.alpha[1:] + d2 * r.beta[1:])
    return Rows(np.concatenate([r.alpha, alpha], axis=1),
                np.concatenate([r.beta, far(r.beta, r.beta[1:])], axis=1),
                np.concatenate([r.gamma, far(r.gamma, r.gamma[1:])], axis=1), r.top)


def controllable(r: Rows, delta: np.ndarray, end: tuple[float, float],
                 bounds: Bounds | None = None) -> np.ndarray:
    """(M, 2) the controllable sets ``K_i`` (lower, upper x; NaN where empty) from ``K_{M-1}
    = end`` (within the limits there) back: the x at i for which a u within every row at i
    gives ``x + 2 delta_i u`` in ``K_{i+1}`` (``delta`` (M-1,): the grid's steps;
    ``bounds``: the rows' :func:`_bounds`, where made before)."""
    lo_s, hi_s = _static(r, bounds)
    M = len(lo_s)
    K = np.full((M, 2), np.nan)
    K[-1] = max(end[0], lo_s[-1]), min(end[1], hi_s[-1])
    # (the pairs with the rows of K_{i+1}, made by the backend as its steps read them: the
    # compiled kernel's, a row at a time; numpy's, arrays of the piece)
    tiny = 1e-12 * np.abs(r.alpha).max(initial=1.0)
    backends.current().reach_controllable(r.alpha, r.beta, r.gamma, delta, tiny, lo_s, hi_s,
                                          K)
    return K


@dataclass(frozen=True, eq=False, repr=False)
class Law:
    """A law along one :class:`Arc`: x at its grid points (M,) and u on its intervals (M-1,)
    (from :func:`along`: u on disk, :class:`~hodyn_cli.algorithms.limits.stored.Stored`,
    read where asked, at a corner; x too on a long arc, read a block at a time, in memory
    below :data:`~hodyn_cli.algorithms.limits.stored.ON_DISK` bytes); ``played``: the x the
    motion is played with at its grid points where it is made otherwise than by
    :func:`smoothed` and :func:`lowered` (None: made so, :func:`played`;
    :func:`~hodyn_cli.algorithms.limits.rates.kept`: for the limits of higher orders)."""

    sigma: Grid
    x: np.ndarray | Stored
    u: np.ndarray | Stored
    played: np.ndarray | Stored | None = None

    @property
    def duration(self) -> float:
        """:func:`law_duration` of its x."""
        return law_duration(self.sigma, self.x)

    @property
    def largest(self) -> float:
        """The largest x (read a block at a time)."""
        return _largest(self.x)

    def held(self) -> Law:
        """The law with x in memory (for what takes it whole: the rounds of
        :mod:`~hodyn_cli.algorithms.limits.rates`)."""
        return self if isinstance(self.x, np.ndarray) else replace(self, x=self.x[:])


def greedy(r: Rows, delta: np.ndarray, K: np.ndarray, start: float, sigma: np.ndarray) -> Law:
    """The forward pass: from x_0 = ``start`` (in K_0) the largest u at each point within
    its rows that keeps ``x + 2 delta u`` in K_{i+1}."""
    M = len(K)
    x, u = np.empty(M), np.empty(M - 1)
    x[0] = start
    tiny = 1e-12 * np.abs(r.alpha).max(initial=1.0)
    backends.current().reach_forward(r.alpha, r.beta, r.gamma, r.alpha > tiny, r.alpha < -tiny,
                                     delta, K, x, u)
    return Law(sigma, x, u)


def solve(model: Model, path: Trajectory | Source, limits: Limits, points: int, *,
          shape_points: int | None = None, gravity=GRAVITY, table: Table | None = None,
          progress: Callable[[int, int], None] | None = None, interpolate: bool = False,
          kept: list[ArcRows] | None = None, turning: bool = False,
          dense: list[np.ndarray | None] | None = None) -> list[tuple[Arc, Law]] | None:
    """The fastest law along ``path`` (times: its parameter; q .. q'' at least; whole or its
    chunks, :func:`arcs`) in its arc
    length, on ``points`` grid intervals in all: per :class:`Arc`, its law (from and to rest
    where the path is at rest, its speed free where it is not, :func:`along`); None where no
    law keeps the limits on the grid; raises :class:`Inapplicable` where a limit is not for
    this solver.
    ``progress(done, total)``: the grid points each pass has done, twice the grid in all.
    The shape's points crowd where the path turns sharply (:func:`arcs`: through even points
    the shape rang about a sharp turn and cut it, and limits of higher orders read its
    q_sigmasigmasigma). ``interpolate``:
    each interval's u within the rows of both its ends (:func:`interpolated`; else within
    its first's alone). ``kept``: where given, each arc's rows (:class:`ArcRows`, made once
    for the passes and kept) appended to it, for later passes on the same arc with the same
    limits to read back (:mod:`~hodyn_cli.algorithms.limits.rates`' rounds,
    :func:`within`; made again, the rounds' passes spent 0.5 of 14 s of a 3 x 10^4-sample
    path's CPU in them: benchmarks/README.md, long7). ``turning``: :func:`arcs`', and each arc's
    grid finer at a moving end whose rows force the law's u there (:func:`forced`,
    :data:`END`), and the passes run once, on that grid; where they find no law there, on
    the grid without the finer ends. ``dense``: each arc's spans where its grid is denser
    (:func:`arcs`, :func:`denser`; without them where the passes find no law there)."""
    out = []
    path = source(path)
    table = table or lengths(path)
    names = table.names

    def ends(arc: Arc) -> tuple[bool, bool]:  # (its rows at each moving end alone)
        # (over the piece's uniform grid's interval, the one its turns are made denser
        # from: FORCED was measured on it)
        last, step = len(arc.sigma) - 1, float(arc.sigma[1] - arc.sigma[0])
        first, end = (not arc.rest[k] and forced(arc_rows(model, arc, names, a, a + 1, limits,
                                                           gravity), step)
                      for k, a in ((0, 0), (1, last)))
        return first, end

    coarse: list[Grid] = []
    # (a grid asked for, not ``turning``, stays uniform: --arc-grid)
    pieces = arcs(path, points, shape_points, table, turning, ends if turning else None, coarse,
                  dense)
    total, done = 2 * sum(len(arc.sigma) for arc in pieces), 0

    def advance(points: int) -> None:
        nonlocal done
        done += points
        if progress is not None:
            progress(done, total)

    def passes(arc: Arc) -> tuple[Law | None, Callable[[int, int], Rows]]:
        def made(a: int, b: int) -> Rows:
            return arc_rows(model, arc, names, a, b, limits, gravity)

        rows_at: Callable[[int, int], Rows] = made if kept is None else ArcRows(
            len(arc.sigma), made)
        # (the rows kept: their bounds too, which rates.kept's passes under a ceiling read)
        # (read again by the forward pass, not copied: along's ``reread``)
        held = rows_at if isinstance(rows_at, ArcRows) and not interpolate else None
        return along(arc, rows_at, advance, interpolate, None if held is None else
                     held.bounds, reread=held is not None), rows_at

    for arc, plain in zip(pieces, coarse, strict=True):
        law, rows_at = passes(arc)
        if law is None and plain is not arc.sigma:  # (its ends finer: the grid without)
            arc = replace(arc, sigma=plain)
            total += 2 * len(plain)
            law, rows_at = passes(arc)
        if law is None:
            return None
        out.append((arc, law))
        if kept is not None:
            assert isinstance(rows_at, ArcRows)
            kept.append(rows_at)
    return out


def forced(r: Rows, step: float) -> bool:
    """Whether the rows at one point (``alpha u + beta x <= gamma``, the top) leave no u = 0
    at the largest x they allow there (``beta x > gamma`` in a row, beyond rounding), and the
    least |u| they then allow changes x by :data:`FORCED` of it at least over the grid's
    interval ``step`` (``2 |u| step``): a law that starts or ends there moving as fast as
    it may must brake or speed up that hard, which the smoothing's average of u over its
    kernel breaks (:data:`END`). (The point's rows made alone: the passes' read their
    neighbours too, :func:`chorded`; a decision only.)"""
    x = float(_static(r)[1][0])
    if not np.isfinite(x):
        return False
    alpha, over = r.alpha[0], r.beta[0] * x - r.gamma[0]
    rows_forcing = over > ROUNDING * np.abs(r.gamma[0])
    if not rows_forcing.any():
        return False
    with np.errstate(divide="ignore"):  # (alpha 0 there: x beyond the row, no u allowed)
        least = np.abs(over[rows_forcing] / alpha[rows_forcing]).max()
    return bool(2 * least * step >= FORCED * x)


def arc_rows(model: Model, arc: Arc, names: tuple[str, ...], a: int, b: int, limits: Limits,
             gravity=GRAVITY) -> Rows:
    """The rows of ``limits`` at the grid points a .. b-1 of ``arc`` (:func:`rows`), the
    velocities' bound on x lowered where it is convex between them (:func:`chorded`); raises
    :class:`Inapplicable` where a limit is not for this solver."""
    found = path_limits(model, arc.trajectory(names, a, b), limits, 0, gravity=gravity)
    if not found:  # (no rows: x unbounded; a law of jerk or torque rates alone needs one)
        raise Inapplicable("no velocity, acceleration or torque limit bounds the path speed")
    reason = inapplicable(found)
    if reason is not None:
        raise Inapplicable(reason)
    r = rows(found)
    return replace(r, top=chorded(r.top, _midway(model, arc, names, a, b, limits, gravity)))


def _midway(model: Model, arc: Arc, names: tuple[str, ...], a: int, b: int, limits: Limits,
            gravity) -> np.ndarray:
    """(b - a - 1,) the velocity limits' bound on x alone (:attr:`Rows.top`) halfway between
    the grid points a .. b-1 (+inf where none): from q and q_sigma there, without the
    dynamics (torque order -1: the same velocity rows to the bit; their two inverse
    dynamics were most of the bound's cost)."""
    mid = (arc.sigma[a : b - 1] + arc.sigma[a + 1 : b]) / 2
    if not limits.limited("velocity").any() or not mid.size:
        return np.full(mid.size, np.inf)
    free = np.array([-np.inf, np.inf])
    speeds = replace(limits, bands={k: band if k == "velocity" else np.broadcast_to(
        free, band.shape) for k, band in limits.bands.items()})
    return rows(path_limits(model, Trajectory(names, arc.jet(mid, 2), mid), speeds, -1,
                            gravity=gravity)).top


def chorded(top: np.ndarray, midway: np.ndarray) -> np.ndarray:
    """The velocities' bound on x at the grid points (``top``, (M,)) lowered so that the
    chord between two neighbours on their bounds stays below the bound halfway between them
    (``midway``, (M-1,)): ``x_i <= c_m + (c_i - c_(i+1)) / 2`` and ``x_(i+1) <= c_m + (c_(i+1)
    - c_i) / 2`` (their sum ``2 c_m``), the same bounds where the bound is straight between
    them, lower where it is convex; where those would not be positive (or a bound is
    infinite), both at most ``c_m``. The law is played between its grid points as a spline
    through them: where the path turns fast, as the ASR arm's Fourier path at 1.52 s (its
    tangent 0.1 rad in 0.3 ms, a grid interval 1 ms), the velocity bound ``(v / q')^2``
    rises steeply and convexly out of its valley, and the played law between the grid points
    was 0.6 % beyond it, which a 10 kHz output's samples saw: the final fit slowed the whole
    law by 1.006 (toppra's grid, as this one, is checked at its points alone).

    >>> chorded(np.array([1.0, 2.0, 3.0]), np.array([1.5, 2.5])).tolist()
    [1.0, 2.0, 3.0]
    >>> chorded(np.array([1.0, 4.0]), np.array([2.0])).tolist()
    [0.5, 3.5]
    """
    if top.size < 2:
        return top
    left, right = top[:-1], top[1:]
    with np.errstate(invalid="ignore"):
        lo, hi = midway + (left - right) / 2, midway + (right - left) / 2
    plain = np.isfinite(lo) & np.isfinite(hi) & (np.minimum(lo, hi) > 0)
    lo = np.where(plain, lo, np.minimum(midway, left))
    hi = np.where(plain, hi, np.minimum(midway, right))
    out = top.copy()
    out[:-1] = np.minimum(out[:-1], lo)
    out[1:] = np.minimum(out[1:], hi)
    return out


def along(arc: Arc, rows_at: Callable[[int, int], Rows | None],
          advance: Callable[[int], None] = lambda points: None, interpolate: bool = False,
          bounds: dict[int, Bounds] | None = None, reread: bool = False) -> Law | None:
    """The law along ``arc`` from the rows of its grid points a .. b-1 (``rows_at(a, b)``;
    None: a limit not for this solver), piece by piece of :data:`BLOCK` intervals: the
    backward pass (:func:`controllable`) from the last piece to the first, each piece's
    controllable sets ending in those of the next one's first point, keeps K (two numbers a
    point) and each piece's rows on disk (:class:`_RowsOnDisk`), read back a piece at a time
    by the forward pass (:func:`greedy`; made again there, the rows were a tenth of a
    10^5-sample path's CPU with limits of higher orders, whose rounds run the passes twice;
    a path of one piece: held). Memory: a piece's rows, whatever the length. The same
    law as on the whole grid at once, but for which rows count as free of u
    (``|alpha|`` below 1e-12 of the piece's largest, not the path's). ``advance(points)``:
    after each piece of each pass; ``interpolate``: the rows :func:`interpolated`.
    ``bounds``: each piece's :func:`_bounds` by its first point, kept there by the first
    call and read by the next ones, whose rows differ in their top alone (rates.kept's
    rounds, under their ceilings: made again at each, they were ~60 % of the rounds'
    passes, the pairs of the Panda's 28 acceleration and torque rows; the same law).
    ``reread``: ``rows_at`` reads rows kept already (:class:`ArcRows`'), so the forward pass
    calls it again rather than write a second copy of them to disk (the same rows: written
    by each pass, they were ~0.7 s of CPU in the 4 passes of the Panda's 10^5-sample Fourier
    path, its rows 3 x 28 numbers a grid point)."""
    M = len(arc.sigma)
    pieces = _pieces(M)

    def delta(a: int, b: int) -> np.ndarray:  # the grid's steps a .. b-1
        return np.diff(arc.sigma[a : b + 1])

    K = Stored(M, (2,))  # (on disk: two numbers a grid point, read back piece by piece)
    end = (0.0, 0.0 if arc.rest[1] else np.inf)
    kept, first = None, np.full(2, np.nan)
    on_disk = _RowsOnDisk(M - 1 + len(pieces)) if len(pieces) > 1 and not reread else None
    for i, (a, b) in reversed(list(enumerate(pieces))):
        r = rows_at(a, b + 1)
        if r is None:
            return None
        r = interpolated(r, delta(a, b)) if interpolate else r
        if on_disk is not None:
            on_disk.write(a + i, r)
        if bounds is not None and a not in bounds:
            bounds[a] = _bounds(r)
        piece = controllable(r, delta(a, b), end, None if bounds is None else bounds[a])
        K.write(a, piece)
        first = piece[0]
        if not first[0] <= first[1]:
            return None
        end = (float(first[0]), float(first[1]))
        kept = r if len(pieces) == 1 else None
        advance(b - a + (a == 0))
    start = first[0] if arc.rest[0] else first[1]
    if arc.rest[0] and start > 0:
        return None
    # (u: on disk, read at a corner alone; x: on disk on a long arc, 8 bytes a grid point
    # held from the passes to the output's last sample otherwise)
    x, u, at = Stored(M), Stored(M - 1), float(start)
    for i, (a, b) in enumerate(pieces):
        if kept is not None:  # (the rows held and on disk are interpolated already)
            r = kept
        elif on_disk is not None and on_disk.whole:
            r = on_disk.read(a + i, b - a + 1)
        else:
            made = rows_at(a, b + 1)
            assert made is not None  # (as in the backward pass)
            r = interpolated(made, delta(a, b)) if interpolate else made
        law = greedy(r, delta(a, b), K[a : b + 1], at, arc.sigma[a : b + 1])
        x.write(a, np.asarray(law.x))
        u.write(a, np.asarray(law.u))  # (greedy's: in memory)
        at = float(law.x[-1])
        advance(b - a + (a == 0))
    return Law(arc.sigma, x if x.on_disk else x[:], u)


def _pieces(M: int) -> list[tuple[int, int]]:
    """:func:`along`'s pieces of a grid of M points: (first, last) point of each, the last
    one's the next one's first."""
    return [(a, min(a + BLOCK, M - 1)) for a in range(0, M - 1, BLOCK)]


class ArcRows:
    """The passes' rows of an arc of M grid points (``rows_at(a, b)``: at its points a ..
    b-1), each of :func:`along`'s pieces' made once, at the first call, and kept
    (:class:`_RowsOnDisk`: on disk above ON_DISK bytes); called as ``rows_at`` is, a
    piece's rows read back, others made afresh. :func:`within` reads them for its needs and
    its passes under a ceiling at every smoothing tried (made again each time, they were
    half of its cost: 2.4 s a time on a 10^5-sample path's 3 x 10^5 points)."""

    def __init__(self, M: int, rows_at: Callable[[int, int], Rows]) -> None:
        self.M, self.rows_at = M, rows_at
        self.pieces = _pieces(M)
        self._stored: _RowsOnDisk | None = None
        #: each piece's :func:`_bounds` by its first point, made by the passes (:func:`solve`)
        #: and read by every later pass under a ceiling, whose rows differ in their top alone
        #: (``rates.kept``'s: made twice, ~1.5-2 s of the Panda's 10^5-sample path)
        self.bounds: dict[int, Bounds] = {}

    def __call__(self, a: int, b: int) -> Rows:
        i = a // BLOCK
        if i < len(self.pieces) and self.pieces[i] == (a, b - 1):
            stored = self._made()
            if stored.whole:
                return stored.read(a + i, b - a)
        return self.rows_at(a, b)

    def _made(self) -> _RowsOnDisk:
        if self._stored is None:
            self._stored = _RowsOnDisk(self.M - 1 + len(self.pieces))
            for i, (a, b) in enumerate(self.pieces):
                self._stored.write(a + i, self.rows_at(a, b + 1))
        return self._stored


class _RowsOnDisk:
    """The passes' :class:`Rows` of each piece of an arc, on disk (:class:`Stored`) at ``at``
    (the pieces' rows one after the other: a piece's last point is the next one's first, its
    rows made twice, not always alike: :func:`chorded`'s bound there reads its neighbour);
    ``whole``: False where the pieces' rows differed in their count, then not kept."""

    def __init__(self, n: int) -> None:
        self.n, self.whole = n, True
        self._arrays: tuple[Stored, Stored, Stored, Stored] | None = None

    def write(self, at: int, r: Rows) -> None:
        """Rows ``r`` (of a piece) from ``at`` on."""
        if self._arrays is None:
            columns = (r.alpha.shape[1],)
            self._arrays = (Stored(self.n, columns), Stored(self.n, columns),
                            Stored(self.n, columns), Stored(self.n))
        elif r.alpha.shape[1] != self._arrays[0].shape[1]:
            self.whole = False
        if self.whole:
            for stored, values in zip(self._arrays, (r.alpha, r.beta, r.gamma, r.top),
                                      strict=True):
                stored.write(at, values)

    def read(self, at: int, count: int) -> Rows:
        """The ``count`` rows from ``at`` on, as written."""
        assert self._arrays is not None and self.whole
        return Rows(*(stored[at : at + count] for stored in self._arrays))


#: an array of the grid read by slices a block at a time: in memory, or on disk
Column = np.ndarray | Stored

#: the law is smoothed over this many grid intervals either side at least: TOPP-RA's x has
#: kinks where u jumps, which the output's higher derivatives cannot carry
SMOOTH = 8
#: box filters in turn (a kernel of their convolution: a B-spline's shape of degree 7, C^6;
#: with 4 (degree 3) the Panda's 3 s line played at 10 kHz failed validate's q^(4) check,
#: its kinks smoothed over ~1 ms: the trapezoid rule's error grows with q^(6) there, and
#: validate's tolerance with the sharpest feature alike, so a kernel that is wider but of
#: the same shape does not pass either: 0.996 of it, 1.18 over 16 intervals; 8 filters 0.56)
PASSES = 8


def smoothed(law: Law, reach: float = 0.0, half: np.ndarray | None = None,
             cubic: bool = False) -> np.ndarray:
    """x at the grid points smoothed by :data:`PASSES` moving averages, each over ``reach /
    PASSES`` seconds either side at the law's own speed there (``reach sqrt(x) / (Delta
    PASSES)`` grid intervals, at least :data:`SMOOTH` / PASSES; :func:`widths`): a kernel that
    reaches as far in time everywhere, the
    law reflected through its ends (``2 x_0 - x(-sigma)``: the value and slope at an end
    are kept, x = 0 at a rest stays 0). The average of points (u, x) within the limits is
    within them up to how much their coefficients change over the kernel, as the limits
    are linear in (u, x) (the final fit scales the motion onto them). ``half``: the
    averages' half-widths (grid intervals, per point) instead of :func:`widths`'; ``cubic``:
    each of x's Catmull-Rom interpolant (:func:`swept`).
    (Whole: :func:`_smoothed` made a block at a time.)"""
    if len(law.x) < PASSES + 3:  # (not one interval either side: below LEAST, never an arc's)
        return law.x[:]
    return _smoothed(law.x, _widths(law, reach) if half is None else half, cubic)[:]


def _smoothed(x: Column, half: Column, cubic: bool = False) -> Column:
    """:func:`smoothed` (x: at least PASSES + 3 points) on disk (:func:`_kept`), each moving
    average made a block at a time from the one before it on disk (memory: a block's, not the ~5 arrays
    of the grid that the averages held: a long path's peak of memory)."""
    out = x
    for _ in range(PASSES):
        out = _kept(len(x), _swept(out, half, odd=True, cubic=cubic))
    ends = _ends_of(x)

    def clipped() -> Iterator[tuple[int, np.ndarray]]:
        for a, block in _blocks(out):
            block = np.maximum(block, 0.0)
            if a == 0:  # (kept exactly by the reflection, but for rounding)
                block[0] = ends[0]
            if a + len(block) == len(x):
                block[-1] = ends[1]
            yield a, block

    return _kept(len(x), clipped())


def widths(law: Law, reach: float) -> np.ndarray:
    """The kernel's moving averages' half-widths (grid intervals, not whole numbers) at each
    point of the law: ``reach sqrt(x) / (Delta PASSES)``, at least :data:`SMOOTH` / PASSES,
    and on a piece shorter than the kernel (a 0.1 s leg at 100 Hz) clipped to it (the
    reflections at both ends within the piece); that field itself averaged by
    :data:`CALMING` moving averages over half its largest value either side, so that it
    has no kink (sqrt(x) has one wherever u jumps, the floor one near a rest) and adds no
    sharp feature of its own to the output's q^(4). (Whole numbers of intervals, as
    before, stepped by one from point to point: each step a jump of the smoothed x, and
    q^(4) up to 7e7 rad/s^4 near the ends of the iiwa's and the Panda's corner legs, 60 to
    880 times its scale ``|q''| / reach^2`` (4.7-4.9 now):
    ``test_the_smoothed_law_has_no_spikes_where_its_kernel_narrows``.) (Whole:
    :func:`_widths` made a block at a time.)"""
    return _widths(law, reach)[:]


def _widths(law: Law, reach: float) -> Column:
    """:func:`widths` on disk (:func:`_kept`), made a block at a time."""
    delta, M = _step(law.sigma), len(law.x)
    least = max(1, -(-SMOOTH // PASSES))
    most = max(1, (M - 3) // PASSES)

    def clip(blocks: Iterable[tuple[int, np.ndarray]]) -> Iterator[tuple[int, np.ndarray]]:
        return ((a, np.clip(block, least, most)) for a, block in blocks)

    width = _kept(M, clip((a, reach * np.sqrt(x) / (delta * PASSES)) for a, x in _blocks(law.x)))
    span = min(max(1.0, _largest(width) / 2), (M - 3) / 2)
    for _ in range(CALMING):
        width = _kept(M, _swept(width, span, odd=False))
    return _kept(M, clip(_blocks(width)))


def _step(sigma: Grid) -> float:
    """The grid's step for the kernel's widths: a uniform grid's (its first interval's),
    and a grid denser where the path turns (:func:`_grids`) its longest, the uniform part's:
    the kernel there as before, narrower in arc length where the grid is denser (there the
    law is slow, in the sharp dips of the turns' torque bound, which a kernel as wide in
    time spreads). Each point's own step made the kernel ~15 intervals wide about the
    dips, and :func:`lowered`'s one reach for the whole law (PASSES times the widest) then
    spanned ~120 of the uniform part's intervals about each: the Borinot's 100 Hz Fourier
    path (grid_intervals' 6003 and 6003 more) lowered to 6.56 s from the passes' 5.32 s,
    5.53 s with the grid's mean step; at 20 Hz (4000 and 12 751 more) 5.63 s with its mean
    step, 5.47 s with its longest (the passes' 5.32 s; benchmarks/README.md, borinot19)."""
    if isinstance(sigma, Spaced):
        return float(sigma[1] - sigma[0])
    if isinstance(sigma, StoredGrid):
        return sigma.longest
    return float(np.diff(sigma).max())


#: the moving averages of :func:`widths`'s field (three: its second derivative continuous)
CALMING = 3


def lowered_duration(law: Law, reach: float) -> float:
    """The duration of ``law`` (at least PASSES + 3 points: else its own) smoothed over
    ``reach`` seconds and lowered (:func:`smoothed`, :func:`lowered`), as :func:`played`
    plays it before its ramps, warps and fit."""
    if len(law.x) < PASSES + 3:
        return law.duration
    return law_duration(law.sigma, _smoothed_lowered(law, reach))


def _smoothed_lowered(law: Law, reach: float) -> Column:
    """:func:`smoothed` over ``reach`` seconds, then :func:`lowered` (law: at least PASSES +
    3 points; each on disk, made a block at a time)."""
    half = _widths(law, reach)
    return _lowered(law.x, _smoothed(law.x, half), PASSES * int(np.ceil(_largest(half))))


def smoothed_shifted(law: Law, reach: float) -> Column:
    """The x a law whose one-point dips are filled (:func:`filled`) is played with as
    :meth:`~hodyn_cli.algorithms.limits.optimal.Optimal._smoothings`' third candidate:
    :func:`smoothed` over ``reach`` seconds, less the field of what that raised above the
    law (:func:`_shifted`; where that is not above 0, :func:`lowered`'s factor field), then
    :func:`_lowered` (no lower where nothing is above its ceiling: the DIP rule's
    neighbours' level at a filled dip is above the fill); the law's own x where it is too
    short to smooth."""
    if len(law.x) < PASSES + 3:
        return law.x
    half = _widths(law, reach)
    smooth, reach_points = _smoothed(law.x, half), PASSES * int(np.ceil(_largest(half)))
    shifted = _shifted(law.x, smooth, max(1, reach_points // PASSES), _end_factors(law.x, smooth))
    return _lowered(law.x, smooth if shifted is None else shifted, reach_points)


def dips(x: Column) -> tuple[np.ndarray, np.ndarray]:
    """(at, near): the grid points inside the law whose x is below :data:`DIP` of both its
    neighbours' (the forward pass's glitches, or a valley of the limits a grid interval
    wide), and the lesser of their neighbours' x."""
    at, near = [np.zeros(0, dtype=int)], [np.zeros(0)]
    for a, block in _blocks(x):
        lo, hi = max(0, a - 1), min(len(x), a + len(block) + 1)
        around = x[lo:hi]
        least = np.minimum(around[:-2], around[2:])
        i = np.flatnonzero(around[1:-1] < DIP * least)
        at.append(i + lo + 1)
        near.append(least[i])
    return np.concatenate(at), np.concatenate(near)


def still_bound(r: Rows) -> np.ndarray:
    """The largest x each point's rows allow with u = 0 (the played law's at a valley's
    bottom, where it turns from braking to speeding up): the least ``gamma / beta`` of the
    rows with ``beta > 0`` (and a positive bound: :func:`_needs`'), and the top."""
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = np.where((r.beta > 0) & (r.gamma > 0), r.gamma / r.beta, np.inf)
    return np.minimum(bound.min(axis=1, initial=np.inf), r.top)


def filled(law: Law, at: np.ndarray, near: np.ndarray, bound: np.ndarray) -> Law:
    """The law with x at its one-point dips ``at`` (:func:`dips`; ``near``: the lesser of
    their neighbours' x) raised to the lesser of ``near`` and ``bound`` there
    (:func:`still_bound` of its rows), never lowered.

    Why: the passes can brake onto a grid point far below what its rows allow and speed up
    again (HyQ's leg on a 9-harmonic Fourier path at 20 Hz: x 2.5, 0, 6.2, where the rows
    allow 41.6 at the middle point); taken as a ceiling, the played law stops there.
    Filled to the neighbours' level alone (:data:`DIP`'s rule, :func:`lowered`), a valley
    of the limits themselves a grid interval wide (Laikago's: 11.8, 5.0, 13.0, its rows 5.9
    at u = 0 in the middle, where the played law turns) was played at 10.4, its hip's
    torque 1.74 times its limit there."""
    if not at.size:
        return law

    def lifted() -> Iterator[tuple[int, np.ndarray]]:
        for a, block in _blocks(law.x):
            block = np.array(block, dtype=float)
            inside = (at >= a) & (at < a + len(block))
            i = at[inside] - a
            block[i] = np.maximum(block[i], np.minimum(near[inside], bound[inside]))
            yield a, block

    return replace(law, x=_kept(len(law.x), lifted()))


def still_rows(model: Model, arc: Arc, names: tuple[str, ...], at: np.ndarray, limits: Limits,
               gravity=GRAVITY) -> Rows:
    """The rows of ``limits`` at the grid points ``at`` of ``arc`` (sorted; :func:`rows`,
    without :func:`chorded`'s lowering, which needs each point's neighbours)."""
    sigma = np.asarray(arc.sigma[at], dtype=float)
    return rows(path_limits(model, Trajectory(names, arc.jet(sigma, 3), sigma), limits, 0,
                            gravity=gravity))


def lowered(x: Column, smooth: np.ndarray, reach: int) -> np.ndarray:
    """The smoothed law ``smooth`` times a factor field ``f <= min(1, x / smooth)``: at most
    the law x itself wherever the smoothing raised it (where x turns from braking to
    speeding up, as where it touches a velocity limit or another ceiling of its own, the
    average of its neighbours is above it; the final fit's one scaling set by the worst
    such point over 1000 s of the iiwa's cosine left it 2.1 % slower than toppra), 1 farther
    than ``2 reach`` grid intervals from any such point. ``f``: ``min(1, x / smooth)``'s
    least over ``reach`` intervals either side, averaged by :data:`PASSES` moving averages
    over ``reach / PASSES`` either side (an average of values each at most the factor at
    the point: at most it; C^(PASSES-2) as a spline through it, so the output's q^(k)
    carry its derivatives smoothly), reflected evenly through the ends (``f' = 0`` there).
    The ceiling is x but at a one-point dip inside the law (below :data:`DIP` of both its
    neighbours; not at a rest: those are the ends), there the lesser of its neighbours:
    where a limit's row has u's coefficient near 0 (the continuous limit on x alone), the
    forward pass can be forced to brake onto 0 or near it at the next grid point and speed
    up again (x 4.08, 0, 2.82 and 3.52, 0.34, 3.44 on a 12-harmonic Fourier path of the
    iiwa, its limits allowing 4.0 at the first middle point); lowered to it, the played
    law stopped there (1e145 s: the windows' programmes, 17 % slower), where the kernel
    averages it away as before (the final fit scales the motion onto the limits). And at
    each end the factor is at most ``x' / smooth'`` there (the slopes ``2 u`` of the
    cubics through the end's four points, as :func:`law_spline` takes them): at a rest x =
    0 and the limits bound u alone, and the kernel's average of the u near it is above the
    u the end allows where that grows along the path (the iiwa's zigzag: 254.9 where 253.7
    is the torque limit, which the final fit paid with 0.21 % of the whole motion); at the
    far end the law's slope carried on from its last two intervals (the forward pass binds
    u at an interval's first point: its last u was 0.2 % beyond the limit at the end).
    (Whole: :func:`_lowered` made a block at a time.)"""
    return _lowered(x, smooth, reach)[:]


def _lowered(x: Column, smooth: Column, reach: int) -> Column:
    """:func:`lowered` a block at a time (``smooth`` itself where it is nowhere above the
    ceiling; else on disk)."""
    M = len(x)
    ends = _end_factors(x, smooth)  # (each end's factor at most: its slopes')
    lowest = [np.inf]

    def need() -> Iterator[tuple[int, np.ndarray]]:  # min(1, ceiling / smooth)
        for a, s in _blocks(smooth):
            b = a + len(s)
            lo, hi = max(0, a - 1), min(M, b + 1)  # (a point's neighbours: the dips)
            around = x[lo:hi]
            ceiling = around.copy()
            near = np.minimum(around[:-2], around[2:])
            dip = np.flatnonzero(around[1:-1] < DIP * near) + 1
            ceiling[dip] = near[dip - 1]
            ceiling = ceiling[a - lo : a - lo + len(s)]
            with np.errstate(divide="ignore", invalid="ignore"):
                factor = np.where(s > ceiling * (1 + ROUNDING), ceiling / s, 1.0)
            if a == 0:
                factor[0] = min(factor[0], ends[0])
            if b == M:
                factor[-1] = min(factor[-1], ends[1])
            lowest[0] = min(lowest[0], float(factor.min()))
            yield a, factor

    factor = _kept(M, need())
    if lowest[0] >= 1.0:
        return smooth
    field = _beneath(factor, max(1, reach // PASSES))

    def product() -> Iterator[tuple[int, np.ndarray]]:
        for a, f in _blocks(field):  # (the averages of ones are one to rounding: not above)
            yield a, smooth[a : a + len(f)] * np.minimum(f, 1.0)

    return _kept(M, product())


def _shifted(x: Column, smooth: Column, width: int, ends: list[float]) -> Column | None:
    """The smoothed law ``smooth`` less a field D at least what it is raised by above the law
    x at every point (``max(0, smooth - x)``'s greatest over ``PASSES width`` points either
    side, averaged by PASSES moving averages over ``width``: :func:`beneath` of its
    negative), and times the field of the ends' factors alone (``ends``, :func:`lowered`'s):
    at most x wherever the smoothing raised it; None where that is not above 0 inside the
    law, or lowers an end at rest (then the factor field, :func:`lowered`).

    Why not the factor's field there: where the smoothing raises a narrow, deep valley of x
    (a torque bound that falls to a few percent of the law around it over a grid interval
    or two, where the path turns sharply: Laikago's and HyQ's legs on a 9-harmonic Fourier
    path, x 600 -> 5 -> 600 within ~40 intervals), the factor at its bottom (5 / 17) spread
    over the field's reach multiplied points where x is ~450 by ~0.3: the played law 2.3-7
    % longer than the passes' and its slopes u = x'/2 twice the braking its torque allows
    there (the final fit 1.37 times slower). D lowers every point by the bottom's deficit
    alone (~12 there), never by more than the factor field does where the law is at least
    as fast as at the valley's bottom, and its slope is that deficit over the field's
    reach, not the law's whole depth over it."""
    M = len(x)
    depth = _beneath(_kept(M, ((a, np.minimum(x[a : a + len(s)] - s, 0.0))
                               for a, s in _blocks(smooth))), width)  # (-D)

    def at_ends() -> Iterator[tuple[int, np.ndarray]]:
        for a in range(0, M, BLOCK):
            factor = np.ones(min(BLOCK, M - a))
            if a == 0:
                factor[0] = min(1.0, ends[0])
            if a + len(factor) == M:
                factor[-1] = min(factor[-1], ends[1])
            yield a, factor

    sides = None if min(ends) == np.inf else _beneath(_kept(M, at_ends()), width)
    out = _kept(M, ((a, smooth[a : a + len(d)] * (1.0 if sides is None else np.minimum(
        sides[a : a + len(d)], 1.0)) + d) for a, d in _blocks(depth)))
    inside = min(float(v[max(0, 1 - a) : M - 1 - a].min(initial=np.inf)) for a, v in _blocks(out))
    rests_kept = all(v == 0 for v, end in zip(_ends_of(out), _ends_of(x), strict=True)
                     if end == 0)
    moving_kept = all(v > 0 for v, end in zip(_ends_of(out), _ends_of(x), strict=True)
                      if end > 0)
    if inside <= 0 or not (rests_kept and moving_kept):
        return None
    return out


def _end_factors(x: Column, smooth: Column) -> list[float]:
    """Each end's factor at most (:func:`lowered`'s: the law's slope over the smoothed
    one's; +inf where the smoothed law leaves no faster)."""
    M = len(x)
    ends = []
    for end, inward in ((0, slice(0, 4)), (-1, slice(M - 4, M))):
        law, smoothed_end = x[inward], smooth[inward]
        if end:
            law, smoothed_end = law[::-1], smoothed_end[::-1]
        slope, smooth_slope = law[1] - law[0], end_slope(smoothed_end)
        if end:  # (u bound at its interval's first point: carried on to the end's)
            slope = min(slope, 2 * slope - (law[2] - law[1]))
        ends.append(slope / smooth_slope if slope > 0 and smooth_slope > slope * (
            1 + ROUNDING) else np.inf)
    return ends


#: a grid point whose x is below this share of both its neighbours' is the forward pass's
#: glitch (:func:`lowered`), not a ceiling: one step of a law braking and speeding up at
#: its limits changes x by ``2 |u| delta``, a small share of it but near a stop
DIP = 0.5

#: the smoothed law counts as above the law beyond this share of it (its straight stretches
#: are kept to rounding)
ROUNDING = 1e-12


def beneath(v: np.ndarray, width: int) -> np.ndarray:
    """A smooth field at most v at every point: v's least over ``PASSES width`` points
    either side (:func:`least`) averaged by :data:`PASSES` moving averages over ``width``
    either side (each point's average is of leasts whose windows hold the point itself:
    at most v there; C^(PASSES-2) as a spline through it), reflected evenly through the
    ends (slope 0 there). Equal to v where v is constant over ``2 PASSES width`` points
    either side, and at v's least (where that is farther than ``PASSES width`` from an
    end): :func:`lowered`'s factor, :func:`~hodyn_cli.algorithms.limits.rates`' lift.
    (Whole: :func:`_beneath` made a block at a time.)"""
    return _beneath(v, width)[:]


def _beneath(v: Column, width: int) -> Column:
    """:func:`beneath` on disk (:func:`_kept`), made a block at a time (the leasts from a
    block and the ``PASSES width`` points either side of it)."""
    r, n = width * PASSES, len(v)

    def leasts() -> Iterator[tuple[int, np.ndarray]]:
        for a in range(0, n, BLOCK):
            b = min(a + BLOCK, n)
            lo = max(0, a - r)  # (beyond the ends: +inf, as least pads them)
            yield a, least(v[lo : min(n, b + r)], r)[a - lo : b - lo]

    out = _kept(n, leasts())
    for _ in range(PASSES):
        out = _kept(n, _averaged(out, width, odd=False))
    return out


def field(n: int, blocks: Iterable[tuple[int, np.ndarray]], width: int) -> Stored:
    """:func:`beneath` (at most 1) of the n points of ``blocks`` ((a, points a ..) in turn),
    on disk, made a block at a time."""
    lows = _beneath(_kept(n, blocks), width)
    # (the averages of ones are one to rounding: not above it)
    return _stored(n, ((a, np.minimum(v, 1.0)) for a, v in _blocks(lows)))


def within(arc: Arc, law: Law, rows_at: ArcRows, reach: float, interpolate: bool = False
           ) -> Law:
    """The law of ``arc`` with its played x (``played``): :func:`smoothed` over ``reach``
    seconds, not :func:`lowered`, and where that played law (its spline, :func:`law_spline`:
    x and u = x'/2 at the grid points) is beyond one of the passes' rows (``rows_at(a,
    b)``: the grid points a .. b-1), the passes run again (:func:`along`, ``interpolate``
    as the passes that made ``law`` were) under a ceiling, the law times the field of what
    each point needs (:func:`_needs`, :func:`_ceiling`), and smoothed again,
    :data:`REPLANS` times at most, until it fits within :data:`FITS`.

    Why: the smoothing averages the law's (u, x), which keeps rows whose coefficients stay
    nearly the same over the kernel. Where they change fast it does not: at a zero-inertia
    point (a joint whose ``(M q_sigma)`` crosses 0, the Go2 leg's hip where it turns back
    on its cosine) the hip's torque does not depend on u and its row bounds x alone, the
    law brakes into a sharp dip of that bound and speeds up out of it, and the average
    across the dip was 10-35 % beyond the hip's and the thigh's torque. Lowering the smoothed
    law afterwards by a factor field (:func:`lowered`, a field as wide as the kernel at the
    law's fastest, ~64 grid intervals: ~30 ms at the dip's speed) kept x under the law there
    but its slopes put u 33 % beyond the torque on the dip's sides, and the final fit slowed
    the whole motion 5.8 % (0.4998 s against toppra's 0.4723 s). Run again under the
    ceiling, the passes brake earlier into it and speed up out of it within the rows, and
    the smoothing of that law keeps them (0.4745 s); a moving end's law is kept as it is
    (:func:`lowered`'s end factor, made for a rest, lowered the G1 arm's filtered step by
    3.6 % over its last 5 ms, 37 % beyond its shoulder's torque)."""
    M, cap = len(arc.sigma), None
    for attempt in range(REPLANS + 1):
        smooth, half = _played_x(law, reach)
        # (a law too short to smooth: as it is; after the last re-plan: kept, not judged)
        if len(law.x) < PASSES + 3 or attempt == REPLANS:
            break
        needs, least_need = _needs(arc.sigma, smooth, rows_at)
        if least_need >= 1 - FITS:
            break
        ceiling = _ceiling(law.x, needs, half)
        cap = ceiling if cap is None else _kept(M, ((a, np.minimum(block, ceiling[a : a + len(
            block)])) for a, block in _blocks(cap)))

        def capped(a: int, b: int, cap: Column = cap) -> Rows:
            r = rows_at(a, b)
            return replace(r, top=np.minimum(r.top, cap[a:b]))

        again = along(arc, capped, interpolate=interpolate)
        if again is None:  # (none under the ceiling: the law as it was)
            break
        law = again
    return replace(law, played=smooth)


#: :func:`within` runs the passes again at most this many times
REPLANS = 3
#: ... until the played law fits every row at every grid point played this much slower (as
#: a share of x): within the final fit's reach, which scales the motion onto the limits
FITS = 1e-3


def _played_x(law: Law, reach: float) -> tuple[Column, Column]:
    """(x, half): the law's x smoothed over ``reach`` seconds (:func:`smoothed`; x as it is
    on a law too short for it) and the kernel's half-widths (:func:`widths`)."""
    if len(law.x) < PASSES + 3:
        return law.x, np.ones(len(law.x))
    half = _widths(law, reach)
    return _smoothed(law.x, half), half


def _needs(sigma: Grid, x: Column, rows_at: ArcRows) -> tuple[Stored, float]:
    """(needs, least): per grid point, the share of the played x (``x``, through
    :func:`law_spline`) at which its (u, x) = (x'/2, x), both times it, is within every row
    there and x within the top (at most 1; on disk), and the least of them. Rows whose
    bound is not positive (beyond the limit at rest: no slowing helps) are left to the
    final fit."""
    M = len(sigma)
    spline, needs, least_need = _law_spline(sigma, x), Stored(M), 1.0
    for a, b in rows_at.pieces:  # (points a .. b: the next piece's first is b)
        r, at = rows_at(a, b + 1), sigma[a : b + 1]
        window = spline.window(float(at[0]), float(at[-1]))
        v, u = x[a : b + 1], window(at, 1) / 2
        lhs = r.alpha * u[:, None] + r.beta * v[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where((lhs > r.gamma) & (r.gamma > 0), r.gamma / lhs,
                             1.0).min(axis=1, initial=1.0)
            share = np.minimum(share, np.where(v > r.top, r.top / v, 1.0))
        needs.write(a, share)
        least_need = min(least_need, float(share.min(initial=1.0)))
    return needs, least_need


def denser(arc: Arc, law: Law, rows_at: ArcRows, reach: float) -> np.ndarray | None:
    """The spans of arc length ((k, 2), sorted, apart; from the arc's start) where the
    arc's grid is to be :data:`DENSER` times as dense: :data:`DENSER_REACHES` of the
    kernel's reaches (PASSES half-widths, :func:`widths`) about each grid point where
    ``law`` smoothed over ``reach`` seconds (:func:`smoothed`, as :func:`within` plays it)
    leaves a row of ``rows_at`` by more than 1 - :data:`ROWS_KEPT` (:func:`_needs`); None
    where it leaves none so (or is too short to smooth). Why: :data:`ROWS_KEPT`."""
    if len(law.x) < PASSES + 3:
        return None
    smooth, half = _played_x(law, reach)
    needs, least_need = _needs(arc.sigma, smooth, rows_at)
    if least_need >= ROWS_KEPT:
        return None
    M, found = len(law.x), []
    for a, block in _blocks(needs):
        i = np.flatnonzero(block < ROWS_KEPT)
        if not i.size:
            continue
        reach_points = DENSER_REACHES * PASSES * np.ceil(np.asarray(half[a : a + len(block)])[i]).astype(int)
        i = i + a
        lo, hi = np.maximum(i - reach_points, 0), np.minimum(i + reach_points, M - 1)
        first, last = int(lo.min()), int(hi.max())
        sigma = np.asarray(arc.sigma[first : last + 1], dtype=float)
        found.append(np.stack([sigma[lo - first], sigma[hi - first]], axis=1))
    spans = np.concatenate(found)
    spans = spans[np.argsort(spans[:, 0], kind="stable")]
    # (merged where they overlap: each span's end the greatest of those before it)
    ends = np.maximum.accumulate(spans[:, 1])
    starts = np.concatenate([[True], spans[1:, 0] > ends[:-1]])
    closing = np.concatenate([np.flatnonzero(starts)[1:] - 1, [len(spans) - 1]])
    return np.stack([spans[starts, 0], ends[closing]], axis=1)


def _ceiling(x: Column, needs: Column, half: Column) -> Column:
    """x times a field beneath the ``needs`` (at most each point's need over the kernel's
    reach about it, 1 where none is below 1, smooth: :func:`field`), the field of each
    point's need as wide as the kernel there (``half`` grid intervals: its reach in time,
    so the field is as narrow where the law is slow), on disk (:func:`_kept`)."""
    M = len(x)
    widths: set[int] = set()
    for a in range(0, M, BLOCK):
        w = np.maximum(1, np.ceil(half[a : a + BLOCK])).astype(int)
        widths.update(distinct(w[needs[a : a + BLOCK] < 1]).tolist())
    out: Column | None = None
    for width in sorted(widths):
        own = field(M, ((a, np.where(np.maximum(1, np.ceil(half[a : a + len(block)])) == width,
                                     block, 1.0)) for a, block in _blocks(needs)), width)
        out = own if out is None else _kept(M, ((a, np.minimum(block, own[a : a + len(block)]))
                                                for a, block in _blocks(out)))
    assert out is not None  # (some point needs less than 1)
    return _kept(M, ((a, block * x[a : a + len(block)]) for a, block in _blocks(out)))


def least(v: np.ndarray, r: int) -> np.ndarray:
    """The least of v over r points either side of each (the ends: over what there is), by
    doubling windows: O(len(v) log r)."""
    big = np.full(r, np.inf)
    padded = np.concatenate([big, v, big])
    span, least = 1, padded
    while 2 * span <= 2 * r + 1:  # least[i]: min of padded[i : i + span]
        least = np.minimum(least[:-span], least[span:])
        span *= 2
    n, size = len(v), 2 * r + 1  # the window [i, i + size): two of span, overlapping
    return np.minimum(least[:n], least[size - span : size - span + n])


def _blocks(x: Column) -> Iterator[tuple[int, np.ndarray]]:
    """(a, x's points a .. a + BLOCK - 1) in turn."""
    for a in range(0, len(x), BLOCK):
        yield a, x[a : a + BLOCK]


def _kept(n: int, blocks: Iterable[tuple[int, np.ndarray]]) -> Column:
    """The n points of ``blocks`` ((a, points a ..) in turn): on disk (:func:`_stored`), or
    on a grid of one block (at most :data:`BLOCK` points, below
    :data:`~hodyn_cli.algorithms.limits.stored.ON_DISK` bytes: a 1000-sample path's) that
    block itself. Why: such a :class:`Stored` held its points in memory anyway, and each
    pass copied them in and the next read them out again (allocated, cast, copied: 621
    columns and ~2800 reads in the 34 fields of :func:`beneath` and the 13 smoothings of
    :mod:`~hodyn_cli.algorithms.limits.rates`' rounds on the iiwa's 1000-sample Fourier
    path, 2.1 % of the instructions of its ``retime --optimal``). Every caller's blocks are
    made afresh, none a view of an array it goes on to change, and nothing writes into a
    kept column: the block is not copied either."""
    if not 0 < n <= BLOCK:  # (none: an empty Stored, as before)
        return _stored(n, blocks)
    (a, block), = blocks  # (the one: _blocks' and every pass's, from a = 0)
    assert a == 0 and len(block) == n
    return np.asarray(block, dtype=float)


def _stored(n: int, blocks: Iterable[tuple[int, np.ndarray]]) -> Stored:
    """The n points of ``blocks`` ((a, points a ..) in turn) on disk (in memory below
    :data:`~hodyn_cli.algorithms.limits.stored.ON_DISK` bytes: :class:`Stored`'s)."""
    out = Stored(n)
    for a, block in blocks:
        out.write(a, block)
    return out


def _largest(x: Column) -> float:
    return max(float(block.max()) for _, block in _blocks(x))


def _ends_of(x: Column) -> tuple[float, float]:
    """x's first and last points."""
    return float(x[0:1][0]), float(x[len(x) - 1 : len(x)][0])


def _sweeps(x: Column, pad: int, odd: bool, trapezoid: bool
            ) -> Iterator[tuple[int, int, np.ndarray, np.ndarray]]:
    """For each block a .. b-1 of x's points in turn (:data:`BLOCK`): (a, b, v, total). v:
    x with ``pad`` points before and after it, reflected through its ends (``odd``: ``2 x_0
    - x(-sigma)``, the value and slope kept there; else ``x(-sigma)``, the value kept, slope
    0), at the indices a .. b + 2 pad of the whole reflection; ``total``: 0, then the
    running sum of v (``trapezoid``: of its neighbours' means) at the same indices, each
    block's carried on from the one before: the same additions in the same order as the
    whole array's cumsum (the same numbers). x is read where the block reaches alone
    (memory: a block's; the whole reflection, its running sum and their temporaries were
    ~5 arrays of the grid, a long path's peak of memory)."""
    n = len(x)
    assert 1 <= pad <= n - 1  # (as the whole array's reflection has it)
    first, last = _ends_of(x)
    carry = 0.0
    for a in range(0, n, BLOCK):
        b = min(a + BLOCK, n)
        e = min(b + 2 * pad + 1, n + 2 * pad)  # (v's points a .. e-1)
        parts = []
        if a < pad:  # (before x's start: x(-sigma), index pad - j)
            front = x[pad - min(e, pad) + 1 : pad - a + 1][::-1]
            parts.append(2 * first - front if odd else front)
        parts.append(x[max(0, a - pad) : max(0, min(n, e - pad))])
        if e > n + pad:  # (beyond its end: index n - 2 - m at m points beyond)
            m0, m1 = max(a, n + pad) - n - pad, e - n - pad
            back = x[n - 1 - m1 : n - 1 - m0][::-1]
            parts.append(2 * last - back if odd else back)
        v = np.concatenate(parts)
        terms = v
        if trapezoid:
            terms = v[:-1] + v[1:]
            terms /= 2
        total = np.empty(len(terms) + 1)
        total[0] = carry
        if a:
            total[1:] = terms
            np.cumsum(total, out=total)
        else:  # (the whole array's: 0, then the sum from its first term)
            np.cumsum(terms, out=total[1:])
        carry = float(total[b - a])
        yield a, b, v, total


def _averaged(x: Column, width: int, odd: bool = True) -> Iterator[tuple[int, np.ndarray]]:
    """One moving average of x over ``width`` points either side, x reflected through its
    ends (:func:`_sweeps`), a block at a time."""
    pad = width + 1
    for a, b, _, total in _sweeps(x, pad, odd, trapezoid=False):
        i = np.arange(b - a) + 1  # (points a .. b-1 at total's a + 1 .. b + 2 pad - 1)
        yield a, (total[i + 2 * width + 1] - total[i]) / (2 * width + 1)


def swept(x: np.ndarray, half: np.ndarray, odd: bool = True, cubic: bool = False
          ) -> np.ndarray:
    """The average of x's piecewise linear interpolant over ``half`` (per point, >= 1, not
    whole numbers) grid intervals either side of each point, x reflected through its ends
    (:func:`_sweeps`): the interpolant's running integral is piecewise quadratic with a
    continuous slope, so the average changes smoothly as the window's ends move (a whole
    number of points either side jumps by a point's weight where that number steps).

    ``cubic``: of x's Catmull-Rom interpolant instead (cubic between neighbouring points,
    its slope at each the central difference; a point more either side), whose running
    integral has a continuous second derivative too, and so have the average's weights as
    the window's ends move. Where ``half`` changes along the path as fast as the rounds of
    :mod:`~hodyn_cli.algorithms.limits.rates` widen it (up to ``rates.SLOPE`` an
    interval), the linear interpolant's made the smoothed law's second difference jump
    wherever a half-width crossed a whole number of intervals; the played law's spline
    through it (quintic: its x^(3) from the fourth differences) carried that to the
    output's q^(4) as a ripple ~1 % high and a grid interval long: 1.2 times ``hodyn
    validate``'s tolerance on the Panda's point-to-point motion with its limits file at 5
    kHz, whose steps are as long as its grid's (tests/test_rates_swept.py). Over whole
    intervals its integral is the trapezoid rule's and ``(m_k - m_(k+1)) / 12`` (m: the
    slopes), which telescopes: a window's average is the trapezoid rule's but at the
    window's ends. (Whole: :func:`_swept` a block at a time.)"""
    return _kept(len(x), _swept(x, half, odd, cubic))[:]


def _swept(x: Column, half: Column | float, odd: bool, cubic: bool = False
           ) -> Iterator[tuple[int, np.ndarray]]:
    """:func:`swept` a block at a time (``half``: per point, or one for all), each block's
    averages from the running integral of the block and the ``half`` either side of it
    (:func:`_sweeps`; ``cubic``: a point more either side, the slopes' neighbours)."""
    pad = int(np.ceil(half if isinstance(half, float) else _largest(half))) + 1 + cubic
    last = len(x) + 2 * pad - 2  # (the whole reflection's last interval's first point)
    for a, b, v, total in _sweeps(x, pad, odd, trapezoid=True):
        centre = np.arange(a, b) + float(pad)
        h = np.full(b - a, half) if isinstance(half, float) else half[a:b]
        ends = [_integral(v, total, a, last, centre + h, cubic),
                _integral(v, total, a, last, centre - h, cubic)]
        yield a, (ends[0] - ends[1]) / (2 * h)


def _integral(v: np.ndarray, total: np.ndarray, a: int, last: int, y: np.ndarray,
              cubic: bool = False) -> np.ndarray:
    """The integral of v's interpolant from its first point to y (v and the trapezoid rule's
    running integral ``total`` from point a on, :func:`_sweeps`; ``last``: its last
    interval's first point). ``cubic``: of its Catmull-Rom interpolant (:func:`swept`), up to
    a constant, y at least 1 from v's first point and 2 from its last: to point k that is
    ``total[k] - m_k / 12`` and the constant ``m_0 / 12``; on from k the cubic's integral
    over ``f = y - k``, with ``d = v_(k+1) - v_k``: ``v_k f + m_k f^2 / 2 + (3 d - 2 m_k -
    m_(k+1)) f^3 / 3 + (m_k + m_(k+1) - 2 d) f^4 / 4``."""
    k = np.minimum(np.floor(y).astype(int), last)
    f, k = y - k, k - a
    if not cubic:  # (v[k] gathered once: the same numbers)
        vk = v[k]
        return total[k] + vk * f + (v[k + 1] - vk) * f * f / 2
    m0, m1 = (v[k + 1] - v[k - 1]) / 2, (v[k + 2] - v[k]) / 2
    d = v[k + 1] - v[k]
    return (total[k] - m0 / 12 + f * (v[k] + f * (m0 / 2 + f * ((3 * d - 2 * m0 - m1) / 3
                                                               + f * (m0 + m1 - 2 * d) / 4))))


#: the kernel reaches this many of the output's steps either side (steps of :data:`FLOOR` Hz
#: on a coarser output): the faster output of the
#: first TRIED that hodyn validate passes, or the first wider one it passes. Fewer steps
#: leave more of a kink than validate accepts of the output's top derivatives, and the
#: duration is not monotonic in them (the iiwa's 3 s line: 1 step 0.09 % from toppra, its
#: output at 0.047 of validate's tolerance, 2 steps 0.49 %, 4 steps 1.4 %; its 3 s curve:
#: 0.76 %, 0.44 %, 1.4 %). 3 between 2 and 4: on a coarse output the law's rise from a rest
#: must span about one output step for validate to pass it (q' against the differences of
#: q on the first step), and the wider kernel costs about a quarter of its reach at each
#: rest: the ASR arm's 1.88 s move along a line at 100 Hz (J1 at its velocity limit 1 ms
#: after the rest) failed validate at 2 steps of 5 ms (2.0 of its tolerance) and passed at
#: 4, 0.55 % slower than toppra; at 3, 0.40 %
STEPS = (1, 2, 3, 4, 8)
TRIED = 2
#: the kernel's step on an output coarser than this rate (Hz) is this rate's: its cost grows
#: as the square of its reach (the iiwa's corner of 0.75 s legs: 0.07 % from toppra at 10 ms,
#: 0.26 % at 20 ms, 1.74 % at the 50 ms of a 20 Hz output), and a 20 Hz sampling resolves
#: neither reach (validate's tolerance there follows the motion's own top derivatives). 200
#: Hz, not 100: the SO-101's point-to-point legs of 0.15 s given at 20 or 100 Hz were 0.75 %
#: slower than toppra smoothed over 10 ms (0.4490 s against 0.4457 s), 0.34 % over 5 ms
#: (0.4472 s: at 1 kHz 0.4470 s), their outputs passing validate as before
FLOOR = 200.0
#: a corner's ramp rises over this many seconds at every rate (its cost: about half the rise
#: on each side of the corner, :mod:`~hodyn_cli.algorithms.limits.ramps`). A quarter of the
#: kernel's reach (12.5 ms at 20 Hz, 2.5 ms at 100 Hz) cost 1.0-1.4 % of a 20 Hz corner and
#: 72 ms (0.32 %) of the iiwa's zigzag of 30 corners at 100 Hz; a fixed rise keeps the
#: ramp's q''' up to 2.19 |q''| / rise and q'''' up to 7.52 |q''| / rise^2 (|q''|: the leg's
#: at the corner; the step's largest r_0' and |r_0''|) the same at every rate (a quarter of a
#: 10 kHz step made them 20 and 400 times as large): on the Panda's corner 1.2e5 rad/s^3 and
#: 8.4e8 rad/s^4, 25 and 600 times those of its legs smoothed over 10 ms
RAMP = 5e-4
#: RAMP and FLOOR's step were measured on arms whose legs (the passes' law from rest to rest)
#: last 0.1-2 s; a motion whose shortest leg is shorter than LEG seconds has them that many
#: times shorter (:func:`scale_of`): each costs time in proportion to itself (the ramp about
#: its rise at each corner, the kernel about a quarter of its reach at each rest), so a fixed
#: one costs a fast motion a larger share of it. The TriFinger's finger_edu (1000 rad/s and
#: 1000 N m) crosses its point-to-point path's three legs in 10 ms, toppra's 9.996 ms: 10.83
#: ms at 10 kHz and 11.51 ms at 100 Hz with RAMP and FLOOR as they are, 10.03 ms at both
#: scaled by its 3.3 ms legs. The same motion played slower keeps its shape at every scale
#: (time-scaling invariance: limits of velocity k and of torque k^2 times as large, the
#: output k times as fine, give a law k times shorter). 0.1 s: the shortest leg of the arms
#: of benchmarks/stranger_optimal.py (the SO-101's three legs of 0.15 s; its line and curve
#: through a rest, one piece of 0.13-0.14 s), whose outputs are then the same bytes
LEG = 0.1


def kernel(steps: int, rate: float, floor: float = FLOOR, scale: float = 1.0
           ) -> tuple[float, float]:
    """(reach, rise) in seconds for an output at ``rate`` Hz: the smoothing's reach,
    ``steps`` of the output's steps (of ``floor / scale``'s on a coarser output), and the
    corners' ramp's rise (:data:`RAMP` times ``scale``), as :func:`played` takes them;
    ``scale``: the motion's own time scale against the arms' these were measured on
    (:func:`scale_of`; 1: theirs). On an output finer than ``floor / scale`` the reach is
    the output's steps, as at any scale: a fraction of a step leaves kinks between the
    samples that validate fails (the finger_edu at 10 kHz, its reach a thirtieth of a step:
    the first smoothings that validate passed were 50 % slower than toppra).

    >>> kernel(1, 20.0), kernel(2, 1000.0), kernel(2, 20.0, floor=100.0)
    ((0.005, 0.0005), (0.002, 0.0005), (0.02, 0.0005))
    >>> kernel(1, 100.0, scale=0.1), kernel(1, 10_000.0, scale=0.1)
    ((0.0005, 5e-05), (0.0001, 5e-05))
    """
    return steps / max(rate, floor / scale), RAMP * scale


def scale_of(pieces: list[tuple[Arc, Law]]) -> float:
    """The motion's time scale against the arms' that :data:`RAMP` and :data:`FLOOR` were
    measured on: its shortest leg's duration (the passes' law ``x``, a block at a time) over
    :data:`LEG`, at most 1. (A leg may reach its speed far sooner than that: where the
    smoothing and ramps of this scale cost enough, a scale
    :data:`~hodyn_cli.algorithms.limits.optimal.FINER` times shorter is tried too.)

    >>> law = Law(np.linspace(0.0, 1.0, 5), np.full(5, 400.0), np.zeros(4))   # 1 at 20/s
    >>> scale_of([(None, law)])
    0.5
    """
    shortest = min(law.duration for _, law in pieces)
    return min(1.0, shortest / LEG)


def law_duration(sigma: Grid, x: Column) -> float:
    """``int dsigma / sqrt(x)`` with sqrt(x) linear between the grid points (x's on a grid,
    one block at a time: x on disk is read so; infinite where x is 0 at both ends of an
    interval)."""
    total = 0.0
    with np.errstate(divide="ignore"):
        for a in range(0, len(x) - 1, BLOCK):
            b = min(a + BLOCK, len(x) - 1)
            r = np.sqrt(np.maximum(x[a : b + 1], 0.0))
            total += float(np.sum(2 * np.diff(np.asarray(sigma[a : b + 1])) / (r[:-1] + r[1:])))
    return total


def _elapsed(x: BSpline, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``int_a^b dsigma / sqrt(x)`` on each interval, x >= 0 with at most a simple zero at an
    end: each half by the substitution ``sigma = end + v^2`` from its own end (the
    integrand ``2 v / sqrt(x)`` stays finite where x vanishes linearly), Gauss-Legendre."""
    if len(a) > BLOCK:  # (memory: a block's nodes and their basis functions, not the grid's)
        return np.concatenate([_elapsed(x, a[i : i + BLOCK], b[i : i + BLOCK])
                               for i in range(0, len(a), BLOCK)])
    nodes, weights = NODES, WEIGHTS
    m = (a + b) / 2
    total = np.zeros(len(a))
    for end, sign in ((a, 1.0), (b, -1.0)):
        r = np.sqrt(np.abs(m - end))
        v = r[:, None] * (nodes + 1) / 2
        xs = x(end[:, None] + sign * v**2)
        total += (2 * v / np.sqrt(np.maximum(xs, 1e-300))) @ weights * r / 2
    return total


#: points added between a corner and the first grid point of each piece, geometric in sigma
#: (halving it every two): the output is resampled from the played motion's points, and the
#: ramp (:mod:`~hodyn_cli.algorithms.limits.ramps`) lies within the first grid intervals
#: (down to 1e-6 of the interval: at the end of a piece of length 3.26, 1e-9 of an interval
#: of 1e-4 was 200 rounding steps of sigma, the time to the end :func:`_elapsed` takes from
#: ``x(end - v^2)`` came to 5e134 s). So too next to a rest that :func:`_start` warps: its
#: warp lasts a quarter of the output's step (2.5 ms at 100 Hz), and the first grid
#: interval from a rest may last far longer (``sqrt(2 Delta / u)``: 25 ms on the simple
#: humanoid's right arm, its wrist's torque mostly held against gravity): the output sampled
#: between the rest and that interval's end by Hermite interpolation
#: (:func:`~hodyn_cli.algorithms.limits.programme.between`) carried the warp's jerk at the
#: rest over the whole interval, its q'' up to 90 % off the law's there, and the fit slowed
#: the whole motion 15.9 % (16 % over toppra; 0.27 % with them: tests/test_gaps17_played.py)
NEAR = 40
#: the played points are at most this many of the output's steps apart in time (more are
#: played inside a longer interval, :meth:`Warped.points`): the output's samples are
#: resampled between them (:func:`~hodyn_cli.algorithms.limits.programme.between`), its top
#: order q^(D-1) as the derivative of a cubic Hermite interpolant of q^(D-2), whose error on
#: an interval h long is ~h^3 |q^(D+2)| / 125, and ``hodyn validate`` allows it 10 times the
#: trapezoid rule's error on the output's step dt, ``dt^2 / 12 |q^(D+1)|``: a ratio of about
#: ``(h / dt)^2 h omega / 100``, omega the motion's fastest rate there, at most ~1 / h where
#: the grid resolves it (0.15 at 4 steps). The grid's ~1 ms intervals, fixed while the output
#: got finer, put the Kinova arm's loop on ANYmal at 10 kHz at 1.46 times the tolerance for
#: q^(4) in its last 10 ms (intervals of 1.1-4.5 ms as the law stops; every smoothing, each
#: narrower than an interval, alike): the windows' law, 19 % longer, was the result
#: (tests/test_loop18_played.py)
OUTPUT_STEPS = 4


def played(pieces: list[tuple[Arc, Law]], orders: int, names: tuple[str, ...],
           t0: float = 0.0, reach: float = 0.0, rise: float = RAMP, step: float = 0.0,
           rated: float | None = None, sampled: float = 0.0) -> Played | None:
    """The motion along the pieces in turn (:class:`Played`: chunk by chunk), each law
    smoothed (:func:`smoothed`, the kernel ``reach`` seconds either side), lowered where
    that raised it above the law (:func:`lowered`) and sampled at its grid points (q ..
    q^(orders-1) exact by the chain rule from the shape's sigma-derivatives and ``sigma_dot =
    sqrt(x)``, ``sigma_ddot = x'/2``, ...); at a corner (where one piece ends and the next
    starts, both at rest) each law warped by a
    :class:`~hodyn_cli.algorithms.limits.ramps.Ramp` of ``rise`` seconds (at most a ``2
    TAIL``-th of the piece; :data:`RAMP`, :func:`kernel`'s, where not given: a rise of 0
    has no ramp, and divided by zero), so that q' .. q^(5) vanish there from both sides; at
    the motion's own ends, where at rest, ramped so too where ``rated`` is given (limits of
    higher orders: a robot held at the rest has no acceleration, and the law's u there would
    be a jump of q'' from it, an infinite jerk; every ramp's step then flat over that share
    of its rise, one of :data:`~hodyn_cli.algorithms.limits.ramps.FLATS` or 0,
    :func:`~hodyn_cli.algorithms.limits.rates.shape`), else on an output of ``step``
    seconds (0: none)
    warped by a :class:`~hodyn_cli.algorithms.limits.ramps.Start` (:func:`_start`: the
    jerk there that ``hodyn validate`` reads the step's scale from); its points at most
    :data:`OUTPUT_STEPS` of the output's steps ``sampled`` apart (0: the grid's); None where the
    output needs a derivative of the law beyond x^(5) (orders > :data:`ORDERS`), or q^(6)
    through a corner (the warp leaves sigma^(6) there, and the direction q_sigma jumps: q^(6)
    would jump)."""
    if orders > ORDERS or (orders > 6 and len(pieces) > 1):
        return None
    if step > 0:  # (the step from a rest to the next sample: the whole motion where it is
        # shorter than one, both samples at its rests. The warps' jerk sized for the output's
        # step gave validate (motion / step)^2 of its margin there: the finger_edu's 5.06 ms
        # curve at 100 Hz a quarter, its 10 ms legs at 20 Hz a 25th, and validate failed every
        # smoothing: the windows' 12.9 ms and the uniform scaling's 18.5 ms were kept)
        step = min(step, sum(law.duration for _, law in pieces))
    laws = []
    start = t0
    for i, (arc, law) in enumerate(pieces):
        ends = (i == 0 and arc.rest[0], i == len(pieces) - 1 and arc.rest[1])
        held = rated is not None
        ramps = _ramps(i, len(pieces), arc, held)
        warped = _warped(law, reach, rise, ramps, orders,
                         ends if step > 0 and not held else (False, False), step, rated or 0.0,
                         OUTPUT_STEPS * sampled)
        laws.append((arc, warped, start))
        start += warped.duration
    return Played(laws, orders, names)


def _ramps(i: int, count: int, arc: Arc, held: bool) -> tuple[bool, bool]:
    """Whether :func:`played` ramps piece i (of ``count``, along ``arc``) at its start and its
    end: at a corner, and at the motion's own rests where ``held`` (limits of higher
    orders)."""
    return (i > 0 or (held and i == 0 and arc.rest[0]),
            i < count - 1 or (held and i == count - 1 and arc.rest[1]))


def ramps_delay(pieces: list[tuple[Arc, Law]], durations: list[float], rise: float,
                flat: float) -> float:
    """The seconds the ramps of ``rise`` (their step's flat share ``flat``) add to the pieces'
    laws lasting ``durations`` where :func:`played` plays them for limits of higher orders
    (``rated``): each ramp's :attr:`~hodyn_cli.algorithms.limits.ramps.Ramp.delay`, as
    :func:`_ramp` makes it on its piece."""
    total = 0.0
    for i, ((arc, _), duration) in enumerate(zip(pieces, durations, strict=True)):
        ramps = _ramps(i, len(pieces), arc, True)
        if any(ramps):
            total += sum(ramps) * _ramp(rise, duration, flat).delay
    return total


#: the points of a chunk of a :class:`Played` motion (its own number, not :data:`BLOCK`: the
#: played motion's memory). Where its chunks are cut does not change the output: the local
#: slowing judges the samples' tops across them (``local.Tops``; judged range by range, the
#: Borinot's Fourier path at 20 Hz in chunks of 2048 was 1.2e-8 shorter:
#: tests/test_stored_grid.py)
PLAYED = 1 << 15


@dataclass(frozen=True, eq=False, repr=False)
class Played:
    """A motion played along arcs, chunk by chunk of at most :data:`PLAYED` points each time it
    is iterated: per arc, its played law (:class:`Warped`) and the time it starts at
    (``laws``: (arc, warped, start)), the motion at a chunk's points the shape's jet composed
    with the law's time derivatives there. A motion within :data:`KEPT` bytes is kept whole
    as its first pass made it (``kept``: the same numbers at every pass); a longer one is
    written to disk as its first whole pass makes it (``stored``,
    :class:`~hodyn_cli.algorithms.limits.stored.Stored`) and read back a chunk at a time at
    the next ones, the same numbers (made afresh at each pass, the jet and the chain rule
    were ~1 s of CPU a pass on a 10^5-sample path's 3 x 10^5 points, read at 10-12 passes:
    the fits, the local slowing's samplings, the output). Memory: a chunk's, or up to
    ``KEPT`` (:class:`Warped`: sigma, t and the spline's coefficients on disk; the spline's
    knots the arc's grid), not the motion's 8 per order and joint (a 10^5-sample path's grid
    played whole was 84 MB, and its temporaries as much again each, for each smoothing
    tried), nor the law's time derivatives (6 numbers a point)."""

    laws: list[tuple[Arc, Warped, float]]
    orders: int
    names: tuple[str, ...]
    #: its chunks as first made, read-only, where the whole motion fits in :data:`KEPT`
    #: bytes (empty: not made yet, or longer)
    kept: list[Trajectory] = dataclasses.field(default_factory=list, init=False, repr=False)
    #: a longer one's points (q .. per point, t) on disk and its chunks' bounds there, once
    #: a whole pass made them (empty: not yet, or kept whole)
    stored: list[tuple[Stored, Stored, list[tuple[int, int]]]] = dataclasses.field(
        default_factory=list, init=False, repr=False)

    @property
    def duration(self) -> float:
        """From its first arc's start to its last arc's end (warped)."""
        (_, _, first), (_, last, start) = self.laws[0], self.laws[-1]
        return start + last.duration - first

    def __iter__(self) -> Iterator[Trajectory]:
        if self.kept:
            yield from self.kept
            return
        if self.stored:
            yield from self._read()
            return
        points = sum(warped.count() for _, warped, _ in self.laws)
        keep, made = points * (self.orders * len(self.names) + 1) * 8 <= KEPT, []
        played = points - len(self.laws) + 1  # (a corner's point played once)
        q_on: Stored | None = None if keep else Stored(played, (self.orders, len(self.names)))
        t_on: Stored | None = None if keep else Stored(played)
        bounds: list[tuple[int, int]] = []
        first = 0
        for arc, warped, start in self.laws:
            for a in range(first, len(warped.sigma), PLAYED):
                sigma, along = warped.points(a, min(a + PLAYED, len(warped.sigma)))
                for c in range(0, len(sigma), PLAYED):  # (a chunk of PLAYED points at most)
                    tau, rates = warped.along(sigma[c : c + PLAYED], along[c : c + PLAYED])
                    q, t = compose(arc.jet(sigma[c : c + PLAYED], self.orders),
                                   rates[:, : self.orders - 1]), start + tau
                    chunk = Trajectory(self.names, q, t)
                    if keep:  # (shared by every pass: read-only)
                        q.setflags(write=False)
                        t.setflags(write=False)
                        made.append(chunk)
                    else:  # (each pass reads its own copy: nothing shared to guard)
                        assert q_on is not None and t_on is not None
                        done = bounds[-1][1] if bounds else 0
                        q_on.write(done, q)
                        t_on.write(done, t)
                        bounds.append((done, done + len(t)))
                    yield chunk
            first = 1  # (the corner: the last arc's end)
        if keep and not self.kept:  # (a whole pass made: the next ones read it; once, where
            # a pass made meanwhile kept it already)
            self.kept.extend(made)
        elif not keep and not self.stored:
            assert q_on is not None and t_on is not None
            self.stored.append((q_on, t_on, bounds))

    def _read(self) -> Iterator[Trajectory]:
        """The chunks as the first whole pass wrote them to disk, read back one at a time."""
        q_on, t_on, bounds = self.stored[0]
        for a, b in bounds:
            yield Trajectory(self.names, q_on[a:b], t_on[a:b])


#: bytes of a :class:`Played` motion kept whole after its first pass, where it fits in them
#: (the fits, the local slowing's samplings and the output read the played motion 10-30
#: times; made afresh each time, the jet and the chain rule were ~15 % of the CPU of a
#: 3000-sample path's reachability run); a longer one is made afresh at each pass, as
#: before, so memory stays bounded and a long path's peak RSS is what it was (a 10^4-sample
#: path's 3 x 10^4 grid points, 7 joints, q .. q^(3): ~7 MB; the first 16 MiB of a
#: 10^5-sample path kept, its peak RSS rose 139 -> 158 MiB for no CPU it could measure)
KEPT = 8 << 20


@dataclass(frozen=True, eq=False, repr=False)
class Warped:
    """One piece's played law: its points ``sigma`` (its grid, and :data:`NEAR` more next to
    each corner and each warped rest), their times ``t`` from its start along ``x``, its
    smoothed law (a quintic spline, :func:`law_spline`), and the ``warps`` of its ends (at its
    start, at its end; None: not warped): a corner's :class:`~hodyn_cli.algorithms.limits.ramps.Ramp`, a
    rest's :class:`~hodyn_cli.algorithms.limits.ramps.Start` at the motion's own ends
    (``end``: the time of its last point, warped at its start). :meth:`points`: a chunk
    of its points and those played between them where two are more than ``longest``
    seconds apart (0: none); :meth:`along`: their
    times and the law's time derivatives there (sigma_dot .. sigma^(K), from x ..
    x^(K-1), x^(5) piecewise constant), made afresh. Memory: a chunk's; sigma, t and the
    spline's coefficients are on disk (:class:`~hodyn_cli.algorithms.limits.stored.Stored`),
    read a chunk at a time, its knots the law's grid (its arc's)."""

    sigma: Stored
    t: Stored
    x: LawSpline
    K: int
    warps: tuple[Warp | None, Warp | None]
    end: float
    longest: float = 0.0

    def points(self, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
        """(sigma, t) of the points a .. b-1 and after each, up to the next, as many more as
        make their steps at most :attr:`longest` seconds (:data:`OUTPUT_STEPS`): ``n - 1``
        where the step is ``n - 1`` to ``n`` times that, at ``sqrt(x)`` evenly spaced
        between the two (x linear between them: evenly spaced in time; from a rest, where
        x is 0, sigma grows as the square of it), their times along the law
        (:func:`_elapsed`)."""
        c = min(b + 1, len(self.t))  # (the next point closes the last interval)
        sigma, t = self.sigma[a:c], self.t[a:c]
        n = self._steps(t)
        at = np.flatnonzero(n > 1)
        if not len(at):
            return sigma[: b - a], t[: b - a]
        n = n[at]
        x = self.x.window(float(sigma[at[0]]), float(sigma[at[-1] + 1]))
        r0, r1 = (np.sqrt(np.maximum(x(sigma[i]), 0.0)) for i in (at, at + 1))
        which = np.repeat(np.arange(len(at)), n - 1)  # (each new point's interval)
        ends = np.concatenate([[0], np.cumsum(n - 1)])  # (each interval's first new point)
        k = np.arange(len(which)) - ends[which]  # (each new point's place in its interval)
        f = (k + 1) / n[which]
        r0, r1, both = r0[which], r1[which], (r0 + r1)[which]
        share = f * (2 * r0 + f * (r1 - r0)) / np.where(both > 0, both, 1.0)
        i = at[which]
        s0, s1 = sigma[i], sigma[i + 1]
        new = s0 + np.where(both > 0, share, f) * (s1 - s0)
        # (timed step by step, each step's time along the law (:func:`_elapsed`) summed over
        # its interval and the sums scaled to the interval's own time: the law's time
        # integrated at once from an end, 5 Gauss points over a whole interval next to a rest,
        # erred by ~1e-6 of it, and the output's q'' at 10 kHz by 1e-5 there)
        steps = _elapsed(x, np.where(k > 0, np.roll(new, 1), s0), new)
        last = _elapsed(x, new[ends[1:] - 1], sigma[at + 1])  # (each interval's last step)
        run = np.cumsum(steps)
        run -= np.repeat(run[ends[:-1]] - steps[ends[:-1]], n - 1)  # (from each interval's start)
        whole = run[ends[1:] - 1] + last
        times = t[i] + run * ((t[at + 1] - t[at]) / whole)[which]
        return (np.insert(sigma[: b - a], i + 1, new), np.insert(t[: b - a], i + 1, times))

    def count(self) -> int:
        """How many points :meth:`points` gives in all."""
        extra = 0
        for a in range(0, len(self.t) - 1, BLOCK):
            extra += int(np.sum(self._steps(self.t[a : a + BLOCK + 1]) - 1))
        return len(self.t) + extra

    def _steps(self, t: np.ndarray) -> np.ndarray:
        """How many steps :meth:`points` plays each interval between the points at times t
        in (1: as it is)."""
        steps = np.diff(t)
        if not self.longest:
            return np.ones(len(steps), dtype=int)
        return np.maximum(np.ceil(steps / self.longest), 1).astype(int)

    def times(self, a: int, b: int) -> np.ndarray:
        """The times of the points a .. b-1 from the start, warped."""
        return self._times(self.t[a:b])[0]

    @property
    def duration(self) -> float:
        """The time from its first point to its last, warped."""
        return float(self._times(self.t[-1:])[0][-1])

    def along(self, sigma: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(tau, rates) at the points sigma (rising; t: their times along the law, as
        :meth:`points` gives them): their times from the start, warped, and the law's time
        derivatives there (E, K)."""
        K = self.K
        x = self.x.window(float(sigma[0]), float(sigma[-1]))
        X = x.jet(sigma, K)
        X[:, 0] = np.maximum(X[:, 0], 0.0)
        jet = np.concatenate([sigma[:, None], time_derivatives(X)], axis=1)[:, :, None]
        tau, warp = self._times(t)
        if warp is None:
            return tau, jet[:, 1:, 0]
        return tau, compose(jet, warp[:, 1:])[:, 1:, 0]

    def _times(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """(tau, warp): the times t from the start warped by the ramps (``t_0 = w(tau)``), and
        w's derivatives there (E, K + 1) (None: no warp)."""
        (start, stop), K = self.warps, self.K
        if start is None and stop is None:
            return t, None
        tau, warp = t.copy(), np.zeros((len(t), K + 1))
        warp[:, 1] = 1.0
        if start is not None:
            tau = tau + start.delay
            first = t < start.tail - start.delay
            tau[first] = start.inverse(t[first])
            warp[first] = start.warp(tau[first], K + 1)
        if stop is not None:  # t_0 = T_0 - w(T - tau): its odd derivatives' signs flip
            last = self.t[-1] - t < stop.tail - stop.delay
            back = stop.inverse(self.t[-1] - t[last])
            tau[last] = self.end + stop.delay - back
            k = np.arange(K + 1)
            warp[last] = stop.warp(back, K + 1) * np.where(k > 0, (-1.0) ** (k - 1), 1.0)
        return tau, warp


def end_slope(x: np.ndarray) -> float:
    """The slope (per grid interval) at x[0] of the cubic through x[0] .. x[3]: the law's
    spline's end slope (:func:`law_spline`)."""
    return float(-11 * x[0] + 18 * x[1] - 9 * x[2] + 2 * x[3]) / 6


def law_spline(sigma: Grid, x: np.ndarray) -> BSpline:
    """x(sigma) through the smoothed law: a quintic spline whose slope and curvature at
    each end are those of the cubic through its four points there. The not-a-knot
    ends extrapolate the curvature near a rest into its first interval: the iiwa's second
    leg of a corner (u = 283.6 at its start, its speed limit 5 ms later) began at x'/2 = 348
    and used 1.24 of its torque limit. Solved a block at a time
    (:func:`~hodyn_cli.algorithms.limits.bsplines.in_blocks`: its banded system over the
    whole grid, ~100 bytes a grid point, was a long path's peak of memory, +76 MB at 3 x
    10^5 samples), the conditions at a block's inner ends the cubic's there too."""
    return in_blocks(sigma, x, LAW, _ends(sigma, x, 0, len(sigma)),
                     lambda lo, hi: _ends(sigma, x[lo:hi], lo, hi))


#: the degree of the played law's spline x(sigma) (:func:`law_spline`)
LAW = 5


@dataclass(frozen=True, eq=False, repr=False)
class LawSpline:
    """:func:`law_spline`'s spline with its coefficients on disk (:class:`~hodyn_cli.algorithms.
    limits.stored.Stored`: M + LAW - 1 of them) and its knots the law's grid ``sigma`` (M,:
    its arc's, held anyway), each end LAW + 1 times: :meth:`window` reads a span's pieces
    alone (a long path's played law held its knots and coefficients, 16 bytes a grid
    point; its knots and their derivatives' differences were made for each window)."""

    sigma: Grid
    coefficients: Stored

    def window(self, lo: float, hi: float) -> BSpline:
        """The spline for ``lo <= x <= hi``, as
        :func:`~hodyn_cli.algorithms.limits.bsplines.windowed` makes it of the whole one (the
        same knots and coefficients: the same numbers)."""
        k, M = LAW, len(self.sigma)
        # (knot j is sigma[j - k], clipped to the ends: the interval of x on the knots is k
        # and the points of the grid up to x, less one, within k .. M + k - 2)
        a, b = np.clip(k + self.sigma.searchsorted(np.array([lo, hi]), side="right") - 1,
                       k, M + k - 2)
        knots = self.sigma[np.clip(np.arange(a - 2 * k, b + 2), 0, M - 1)]
        return BSpline(knots, self.coefficients[a - k : b + 1], k)


def _law_spline(sigma: Grid, x: Column) -> LawSpline:
    """:func:`law_spline` through x (in memory or on disk, read a block at a time), its
    coefficients on disk."""
    M = len(sigma)
    coefficients = Stored(M + LAW - 1)
    ends = np.concatenate([x[0:4], x[M - 4 : M]])  # (each end's four points)
    done = 0
    for block in coefficients_of(sigma, x, LAW, _ends(sigma, ends, 0, M),
                                 lambda lo, hi: _ends(sigma, x[lo:hi], lo, hi)):
        coefficients.write(done, block)
        done += len(block)
    return LawSpline(sigma, coefficients)


def _ends(sigma: Grid, x: np.ndarray, a: int, b: int
          ) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
    """The slope and curvature at each end of the cubic through the four points there (x's
    ends: at the grid points a and b-1, each with its own step: :func:`end_steps`)."""
    first, last = end_steps(sigma, a, b)
    ends = []
    for end, sign, h in ((x[:4], 1.0, first), (x[:-5:-1], -1.0, last)):
        curvature = 2 * end[0] - 5 * end[1] + 4 * end[2] - end[3]
        ends.append([(1, sign * end_slope(end) / h), (2, curvature / h**2)])
    return ends[0], ends[1]


def end_steps(sigma: Grid | np.ndarray, a: int = 0, b: int | None = None
              ) -> tuple[float, float]:
    """The grid's first and last steps over its points a .. b-1: on a uniform grid (its
    steps equal but for rounding) the first for both, as before grids were denser where the
    path turns (:func:`_grids`: each end its own).

    >>> end_steps(np.linspace(0.0, 1.0, 7)), end_steps(np.array([0.0, 0.5, 0.75]))
    ((0.16666666666666666, 0.16666666666666666), (0.5, 0.25))
    """
    b = len(sigma) if b is None else b
    first, last = float(sigma[a + 1] - sigma[a]), float(sigma[b - 1] - sigma[b - 2])
    return first, first if abs(last - first) <= UNIFORM * first else last


#: grid steps within this share of each other are one step (:func:`end_steps`: rounding's
#: differences on a uniform grid are ~1e-13 of a step at 10^6 points)
UNIFORM = 1e-9


def _ramp(rise: float, duration: float, flat: float = 0.0) -> Ramp:
    """The corners' ramp on a piece played in ``duration`` seconds: ``rise`` seconds and a
    tail of :data:`~hodyn_cli.algorithms.limits.ramps.TAIL` rises, within half the piece:
    where they are longer (a long rise for limits of higher orders,
    :func:`~hodyn_cli.algorithms.limits.rates.rise`: the Panda's torque rates asked for 78
    ms on legs of 0.6-0.84 s), a shorter tail, down to :data:`SHORTEST` rises (its
    overshoot 0.57 % of u there, 0.84 % with the flat step, which the final fit pays), then
    a shorter rise; ``flat``: its step's flat share (:class:`Ramp`'s)."""
    tail = min(TAIL, max(SHORTEST, duration / (2 * rise)))
    return Ramp(min(rise, duration / (2 * tail)), tail, flat)


def _times_along(x: LawSpline, sigma: Stored) -> Stored:
    """The times of the points sigma from the first along the law x (the running sum of
    :func:`_elapsed`, :data:`BLOCK` intervals at a time, each block's sum carried on from the
    last: the same additions in the same order as the whole array's ``cumsum``), on disk."""
    t = Stored(len(sigma))
    t.write(0, np.zeros(1))
    carry = 0.0
    for a in range(0, len(sigma) - 1, BLOCK):
        b = min(a + BLOCK, len(sigma) - 1)
        points = sigma[a : b + 1]
        steps = _elapsed(x.window(float(points[0]), float(points[-1])), points[:-1],
                         points[1:])
        block = np.cumsum(np.concatenate([[carry], steps]))[1:]
        t.write(a + 1, block)
        carry = float(block[-1])
    return t


#: the shortest tail of a corners' ramp, in rises (:func:`_ramp`)
SHORTEST = 4


def _warped(law: Law, reach: float, rise: float, corner: tuple[bool, bool], orders: int = 5,
            rests: tuple[bool, bool] = (False, False), step: float = 0.0, flat: float = 0.0,
            longest: float = 0.0) -> Warped:
    """The played law of one piece (:class:`Warped`): its smoothed law, its points (its grid,
    and :data:`NEAR` more next to each corner and each warped rest) and their times from its
    start, the ramps of its corners and the warps of its ``rests`` (at the motion's own ends, on an output of
    ``step`` seconds: :func:`_start`); the law's time derivatives there sigma_dot ..
    sigma^(K), K = max(4, orders - 1), are made chunk by chunk (:meth:`Warped.along`), with
    more points where two are more than ``longest`` seconds apart (:meth:`Warped.points`; 0:
    none)."""
    K = max(4, orders - 1)
    smooth: Column = law.x
    if law.played is not None:
        smooth = law.played
    elif len(law.x) >= PASSES + 3:  # (each on disk, made a block at a time)
        smooth = _smoothed_lowered(law, reach)
    x = _law_spline(law.sigma, smooth)
    peak = _largest(smooth) if any(rests) else 0.0
    del smooth  # (the spline holds it)
    sigma, end = law.sigma, law.sigma[-1]
    near = 2.0 ** (-np.arange(NEAR, 0, -1) / 2)
    closer = [corner[i] or rests[i] for i in (0, 1)]  # (a ramp or a rest's warp: NEAR's)
    head = np.concatenate([[0.0], sigma[1] * near if closer[0] else []])
    tail = np.concatenate([end - (end - sigma[-2]) * near[::-1] if closer[1] else [], [end]])
    points = Stored(len(head) + len(sigma) - 2 + len(tail))  # (on disk, a block at a time)
    points.write(0, head)
    for a in range(1, len(sigma) - 1, BLOCK):
        points.write(len(head) + a - 1, sigma[a : min(a + BLOCK, len(sigma) - 1)])
    points.write(len(points) - len(tail), tail)
    t = _times_along(x, points)
    ramp = _ramp(rise, float(t[-1]), flat) if any(corner) else None
    if ramp is not None:
        points, t = _at_joins(x, points, t, ramp, corner)
    warps = [ramp if corner[i] else _start(x, points, t, i, peak, step) if rests[i] else None
             for i in (0, 1)]
    first, last = warps[0], t[-1:]
    if first is not None:  # (the end's time as the start's warp moves it)
        last = np.where(last < first.tail - first.delay, first.inverse(last),
                        last + first.delay)
    return Warped(points, t, x, K, (warps[0], warps[1]), float(last[0]), longest)


#: the points :func:`_at_joins` adds to a piece at most: a ramp's joins (the flat step's two
#: inner ones, its rise, its tail) at each end
JOINS = 8
#: a join within this share of a grid interval of a played point is left there (the
#: interpolant's error from a jump at a share p of its interval goes as p^2)
CLOSE = 0.01


def _at_joins(x: LawSpline, points: Stored, t: Stored, ramp: Ramp, corner: tuple[bool, bool]
              ) -> tuple[Stored, Stored]:
    """The played ``points`` (sigma) and their times ``t`` along the law ``x`` with a point
    added at each join of the ramp's pieces (:attr:`~hodyn_cli.algorithms.limits.ramps.
    Ramp.joins`) at each ramped end (``corner``), where the output's q^(6) jumps: the output
    is resampled between the played points by Hermite interpolation of q^(3) and q^(4)
    (:func:`~hodyn_cli.algorithms.limits.programme.between`), whose q^(4) errs by ~J h^2
    where q^(6) jumps by J inside an interval h long, and at a point it is exact. (Between
    them, the flat step's joins, r^(4) jumping by 2430 / rise^4 at four places, put the
    Panda's point-to-point output at 5 and 10 kHz at 4.2 and 5.0 times ``hodyn validate``'s
    tolerance for q^(4) just past a corner and before its last rest; the single step's one,
    840 / rise^4, within it.) Each join's sigma by Newton's steps on the law's time from the
    played point before it (:func:`_elapsed`), its time that sum; the other points' times
    are left as they were."""
    n = len(points)
    T = float(t[n - 1 : n][0])
    w = ramp.warp(ramp.joins, 1)[:, 0]  # (the law's own time from the rest at each join)
    goals = np.concatenate([w if corner[0] else [], T - w[::-1] if corner[1] else []])
    goals = distinct(goals[(goals > 0) & (goals < T)])
    at, added, times, k = [], [], [], 0
    for goal in goals:
        k = max(1, first_from(t, float(goal), k))
        (t0, t1), (s0, s1) = t[k - 1 : k + 1], points[k - 1 : k + 1]
        law = x.window(float(s0), float(s1))
        s = s0 + (goal - t0) / (t1 - t0) * (s1 - s0)
        for _ in range(4):  # (from the chord: its error ~h^2, each step squares it)
            s = float(np.clip(s - (t0 + _elapsed(law, np.array([s0]), np.array([s]))[0]
                                   - goal) * np.sqrt(max(float(law(s)), 1e-300)), s0, s1))
        if min(s - s0, s1 - s) > CLOSE * (s1 - s0):
            at.append(k)
            added.append(s)
            times.append(t0 + _elapsed(law, np.array([s0]), np.array([s]))[0])
    assert len(at) <= JOINS
    if not at:
        return points, t
    where = np.array(at)
    out = [Stored(n + len(at)), Stored(n + len(at))]
    for a in range(0, n, BLOCK):  # (a block at a time, each join before its point k)
        b = min(a + BLOCK, n)
        mine = (where > a) & (where <= b)
        shift = int(np.count_nonzero(where <= a))
        for column, old, new in zip(out, (points, t), (added, times), strict=True):
            column.write(a + shift, np.insert(old[a:b], where[mine] - a,
                                              np.asarray(new)[mine]))
    return out[0], out[1]


#: the warps of a piece's ends
Warp = Ramp | Start

#: how many times the trapezoid rule's error on the output's step from a rest (relative to
#: the motion's largest speed) ``hodyn validate`` is made to allow there by the rest's jerk
#: (:func:`_start`)
MARGIN = 2.0
#: a rest's warp's tail, in output steps: the warp costs ``epsilon L / 56`` with epsilon in
#: proportion to L (its jerk fixed), as the square of it; over a whole step the SO-101's
#: point-to-point path at 100 Hz (its narrowest kernel passing validate without it) was 0.004 %
#: slower, the B1-Z1's line at 20 Hz 0.064 % from toppra against 0.026 % over a quarter
#: (0.029 % over a tenth)
STARTS = 0.25
#: a rest's warp's epsilon at most (w' >= 1 - epsilon DEEPEST: its law's speed at most 6 %
#: lower over its tail)
EPSILON = 1.0


def _start(x: LawSpline, points: Stored, t: Stored, end: int, peak: float, step: float
           ) -> Start | None:
    """The warp of a law at a rest that is an end of the motion, on an output of ``step``
    seconds (its law x through its ``points`` (sigma) at their times ``t``, ``peak`` its
    largest x; ``end``: 0 its start, 1 its end): over ``L =`` :data:`STARTS` ``step``
    seconds (at most half the piece), its jerk at the rest such that validate allows :data:`MARGIN` times the
    trapezoid rule's error on the step from the rest (``e``, relative to the law's largest
    speed ``v = sqrt(peak)``: ``|Delta sigma / step - sigma_dot / 2|`` at the step's end, the
    rule's error on a straight line): ``12 E v / step^2``, ``E = MARGIN e / 10`` (epsilon
    at most :data:`EPSILON`); None where the law does not accelerate from the rest (x' = 0
    there) or the rule is exact.

    Why: ``hodyn validate`` judges q' against the differences of q on the output's step from
    the rest by the trapezoid rule, whose error on a step h is ``h^2 / 12 q'''(xi)``
    somewhere on it, and allows 10 times ``h^2 / 12 |q'''|`` at its samples. The fastest
    law reaches the speed limit a few ms after the rest, within a coarse step: the rule errs
    by up to half the speed reached, which the jerk of that rise explains, but x linear in
    sigma at the rest makes ``sigma''' = x'' sqrt(x) / 2`` vanish at the sample there, and
    validate sees the rise only where a sample falls in it: a smoothing over ~a step (the
    SO-100's line at 20 Hz: 20 ms, 0.84 % slower than toppra) or a failure. The warp's
    jerk ``-3 u epsilon / L`` (u: the law's path acceleration at the rest) is far less than
    the law's own a few ms on (a rise over ``step / sqrt(24 E)``, u ~ v / 1.6 step at 20
    Hz where e = 1/2); it costs ``epsilon L / 56``."""
    T, last = float(t[len(t) - 1 : len(t)][0]), len(points) - 1
    h = min(step, T)  # (the output's step from the rest)
    rest, on = (float(points[last : last + 1][0]), T - h) if end else (0.0, h)
    k = max(1, first_from(t, on, 0))
    at = float(np.interp(on, t[k - 1 : k + 1], points[k - 1 : k + 1]))
    u = abs(float(x.window(rest, rest)(np.array([rest]), 1)[0])) / 2
    speed = np.sqrt(max(float(x.window(at, at)(np.array([at]))[0]), 0.0))
    e = abs(abs(at - rest) / h - speed / 2) / np.sqrt(peak) if peak > 0 else 0.0
    if not u > 0 or not e > 0:
        return None
    tail = min(STARTS * step, T / 2)
    epsilon = min(EPSILON, 4 * MARGIN * e / 10 * np.sqrt(peak) * tail / (u * step**2))
    return Start(tail, epsilon)
