"""A link's prescribed motion (what ``hodyn kinematics`` writes, ``hodyn ik`` reads), in chunks.

Columns (CSV) or datasets (HDF5): ``t`` (optional); the pose ``p_x..p_z`` and ``R_11..R_33``
(``p`` (N, 3), ``R`` (N, 3, 3)); the twist and its derivatives, spatial ``Vs_wx..Vs_vz``,
``Vsd_..``, ... or body-fixed ``Vb_..``, ``Vbd_..``, ... (``Vs``, ``Vsd``, ... (N, 6)); the
velocity, acceleration, ... of the link origin ``pd_x``, ``pdd_x``, ... (``pd``, ... (N, 3)).
The spatial set is used if both are there; body-fixed twists are passed on as such.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from hodyn_cli.core.motion import LinkMotion
from hodyn_cli.core.trajectory import check_rotations, derivative_name
from hodyn_cli.errors import TrajectoryError
from hodyn_cli.io.checks import check_increasing, check_values
from hodyn_cli.io.columns import MOTION_DATASET, column_listing, motion_suffixes
from hodyn_cli.io.reader import CHUNK_ROWS
from hodyn_cli.io.tables import Hdf5Table, empty, open_table, rechunk

__all__ = ["MotionLayout", "MotionReader", "plan_motion"]


@dataclass(frozen=True, eq=False, repr=False)
class MotionLayout:
    """Which columns a motion is read from: ``twist`` is ``"Vs"``, ``"Vb"`` or None with
    ``K`` orders; ``P`` point derivative orders (``pd``, ...)."""

    has_t: bool
    rotation: bool
    twist: str | None
    K: int
    P: int
    ignored: tuple[str, ...]

    @property
    def columns(self) -> list[str]:
        keys = ["p"] + (["R"] if self.rotation else [])
        keys += [derivative_name(self.twist, k) for k in range(self.K)] if self.twist else []
        keys += [derivative_name("p", k + 1) for k in range(self.P)]
        return (["t"] if self.has_t else []) + [f"{key}_{s}" for key in keys
                                                for s in motion_suffixes(key)]


def plan_motion(names: list[str], task: str, source: str, hdf5: bool = False) -> MotionLayout:
    """The layout of a motion table; a one-line error names a missing column (an HDF5
    file's, ``hdf5``: its dataset)."""
    have = set(names)

    def orders(base: str, first: int) -> int:
        """How many consecutive derivative orders of ``base`` are complete."""
        k = first
        while True:
            key = derivative_name(base, k)
            cols = [f"{key}_{s}" for s in motion_suffixes(key)]
            present = [c for c in cols if c in have]
            if not present:
                return k - first
            if len(present) < len(cols):
                missing = [c for c in cols if c not in have]
                raise TrajectoryError(f"missing {column_listing(missing, hdf5)} (the rest of "
                                      f"'{key}' is there)", source)
            k += 1

    required = [f"p_{s}" for s in motion_suffixes("p")]
    if task == "pose":
        required += [f"R_{s}" for s in motion_suffixes("R")]
    missing = [c for c in required if c not in have]
    if missing:
        raise TrajectoryError(f"missing {column_listing(missing, hdf5)}: the link pose (as "
                              "hodyn kinematics writes it)", source)
    twist = None
    if task == "pose":  # a position task needs no twists
        twist = next((f for f in ("Vs", "Vb") if any(n.startswith(f + "_") for n in names)), None)
    K = orders(twist, 0) if twist else 0
    P = orders("p", 1)
    for base, top in ((twist, K - 1), ("p", P)):   # the highest complete order
        if base is None:  # no twist columns
            continue
        pattern = re.compile(rf"{base}(d*)_.+")
        beyond = [n for n in names if (m := pattern.fullmatch(n)) and len(m[1]) > top]
        if beyond:
            raise TrajectoryError(f"column '{beyond[0]}' has no lower derivative "
                                  f"'{derivative_name(base, top + 1)}_..'", source)
    ignored = tuple(n for n in names if n != "t" and not MOTION_DATASET.fullmatch(n.rsplit("_", 1)[0]))
    return MotionLayout("t" in have, task == "pose", twist, K, P, ignored)


class MotionReader:
    """A link motion file (``-``: CSV on stdin) as a stream of :class:`LinkMotion` chunks.

    Values are checked as they stream: finite, ``t`` increasing, ``R`` a rotation.
    ``link``: the link the file describes if it says so (HDF5 attribute ``link``).
    """

    def __init__(self, path: str, task: str = "pose", chunk: int = CHUNK_ROWS, stdin=None):
        self.path, self.chunk = path, chunk
        self.table = open_table(path, stdin)
        try:
            self.layout = plan_motion(self.table.names, task, path,
                                      isinstance(self.table, Hdf5Table))
        except BaseException:
            self.table.close()
            raise
        link = getattr(self.table, "attrs", {}).get("link")
        self.link = link.decode() if isinstance(link, bytes) else link

    @property
    def has_t(self) -> bool:
        return self.layout.has_t

    @property
    def n_samples(self) -> int | None:
        return self.table.n_rows

    @property
    def expected_samples(self) -> int | None:
        """:attr:`n_samples`, or an estimate while a CSV file is read (a progress bar's total;
        None from a pipe)."""
        return self.table.expected_rows

    @property
    def ignored(self) -> list[str]:
        return list(getattr(self.table, "ignored", [])) + list(self.layout.ignored)

    def __enter__(self) -> MotionReader:
        return self

    def __exit__(self, *exc) -> None:
        self.table.close()

    def __iter__(self) -> Iterator[LinkMotion]:
        columns, lay = self.layout.columns, self.layout
        start, last_t = 0, None
        for block in rechunk(self.table.blocks(columns), self.chunk, lambda: self.table.paused):
            check_values(block, columns, self.path, start)
            n, c = len(block), int(lay.has_t)
            t = np.ascontiguousarray(block[:, 0]) if lay.has_t else None
            if t is not None:
                check_increasing(t, last_t, start, self.path)
                last_t = t[-1]
            p = block[:, c : c + 3]
            c += 3
            R = None
            if lay.rotation:
                R = block[:, c : c + 9].reshape(n, 3, 3)
                c += 9
                try:
                    check_rotations(R, "R", start)
                except TrajectoryError as e:
                    raise TrajectoryError(e.message, self.path) from None
            V = block[:, c : c + 6 * lay.K].reshape(n, lay.K, 6) if lay.K else None
            c += 6 * lay.K
            pd = block[:, c : c + 3 * lay.P].reshape(n, lay.P, 3) if lay.P else None
            body = lay.twist == "Vb"
            yield LinkMotion(p, R, None if body else V, pd, t, V if body else None)
            start += n
        if not start:
            raise empty(self.table, self.path)
