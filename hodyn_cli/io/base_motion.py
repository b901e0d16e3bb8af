"""The motion of a floating root link, read in lockstep with a trajectory.

Columns as ``hodyn kinematics`` writes a link's motion, prefixed ``base_`` in a trajectory
file (a ``--base-motion`` file may leave the prefix out): the pose ``base_p_x..z`` and
``base_R_11..33`` (row-major: the root link frame in the world), the body twist
``base_Vb_wx..vz`` and its derivatives ``base_Vbd_..``, ... or instead the spatial twist
``base_Vs_..``, ``base_Vsd_..``, ... (world frame). HDF5: datasets ``base_p`` (N x 3),
``base_R`` (N x 3 x 3), ``base_Vb``, ... (N x 6), or ``p``, ``R``, ``Vb``, ...
"""

from __future__ import annotations

import numpy as np

from hodyn_cli.core.model import Model
from hodyn_cli.core.motion import LinkMotion
from hodyn_cli.core.trajectory import check_base, derivative_name
from hodyn_cli.errors import TrajectoryError
from hodyn_cli.io.columns import ROTATION, TWIST, XYZ, column_listing, pose_columns
from hodyn_cli.io.lockstep import Lockstep
from hodyn_cli.io.paths import listing
from hodyn_cli.io.tables import BLOCK_ROWS, Hdf5Table, open_table

__all__ = ["BaseMotionReader", "plan_base", "twist_orders", "check_poses_apart"]


def check_poses_apart(model: Model, source: str) -> None:
    """Nothing unless a multi-DOF joint's pose columns (:func:`~hodyn_cli.io.columns.
    pose_columns`: a free joint called ``base``, ``base_p_x``, ..., ``base_R_33``; a ball
    joint's ``base_R_..``) are a floating root's (:func:`plan_base`): then a trajectory would
    read one motion as both and a command's output write both under one name; a one-line
    error names the joint and ``source`` (the command line: the robot's file, which names
    the joint; the library: the trajectory file read or written). (The free joint that
    moves the root inside is named apart: :func:`~hodyn_cli.core.model.free_root_name`;
    its columns are not.)

    >>> from hodyn_cli.modeling.urdf import parse_model
    >>> check_poses_apart(parse_model(b'<robot name="r"><link name="a"/><link name="b"/>'
    ...     b'<joint name="base" type="floating"><parent link="a"/><child link="b"/>'
    ...     b'</joint></robot>'), "walk.csv")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hodyn_cli.errors.TrajectoryError: walk.csv: joint 'base' (free): its pose columns base_p_x, ...
    """
    root = set(_pose("base_"))
    for i, nv in enumerate(model.dofs):
        clash = [c for c in pose_columns(model, i) if c in root] if nv > 1 else []
        if clash:
            joint = model.joint_names[i]
            raise TrajectoryError(
                f"joint '{joint}' ({model.joint_types[i]}): its pose columns "
                f"{listing(clash)} are the floating "
                f"root's (base_p_.., base_R_..): rename the joint to move the robot on a "
                "floating base", source)


def plan_base(names: list[str], orders: int, source: str, *, own_file: bool = False,
              hdf5: bool = False) -> tuple[list[str], str]:
    """``(columns, twist)``: the columns of a base motion with ``orders`` twist derivative
    orders (``t`` first if present) and ``"Vb"`` or ``"Vs"``; a one-line error names what
    is missing as the file must name it: a trajectory file's ``base_`` columns, a
    ``--base-motion`` file's (``own_file``) with or without the prefix, an HDF5 file's
    datasets (``hdf5``).

    >>> plan_base(["t", "q_j1"], 1, "walk.csv")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hodyn_cli.errors.TrajectoryError: walk.csv: missing column(s) base_p_x, base_p_y, ...
    >>> plan_base(["t", "p_x"], 1, "root.h5", own_file=True, hdf5=True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hodyn_cli.errors.TrajectoryError: root.h5: missing dataset(s) p, R: the pose ...
    """
    have = set(names)
    prefix, twist = _naming(names, own_file)
    pose = _pose(prefix)
    missing = [c for c in pose if c not in have]
    if missing:
        how = "or prefixed base_" if own_file and not prefix else "prefixed base_"
        raise TrajectoryError(f"missing {column_listing(missing, hdf5)}: the pose of the floating "
                              f"root (as hodyn kinematics writes it, {how})", source)
    columns = pose
    for k in range(orders):
        cols = [f"{prefix}{derivative_name(twist, k)}_{s}" for s in TWIST]
        missing = [c for c in cols if c not in have]
        if missing:
            raise TrajectoryError(
                f"missing {column_listing(missing, hdf5)}: the floating root's twist to "
                f"{prefix}{derivative_name(twist, orders - 1)} (body-fixed {prefix}Vb.. or "
                f"spatial {prefix}Vs..)", source)
        columns += cols
    return (["t"] if "t" in have else []) + columns, twist


def _pose(prefix: str) -> list[str]:
    """The pose's columns: ``<prefix>p_x``, ..., ``<prefix>R_33``."""
    return [f"{prefix}p_{s}" for s in XYZ] + [f"{prefix}R_{s}" for s in ROTATION]


def _naming(names: list[str], own_file: bool = False) -> tuple[str, str]:
    """``(prefix, twist)``: ``base_`` in a trajectory file, and in a ``--base-motion`` file
    (``own_file``) whose pose has it ('' in one whose pose has not: a kinematics output,
    whatever other ``base_`` columns it has); ``Vb`` (body twists) or ``Vs`` (spatial ones,
    when only they are there).

    >>> _naming(["t", "base_frame", "p_x", "Vb_wx"], own_file=True)
    ('', 'Vb')
    """
    have = set(names)
    prefix = "base_" if not own_file or any(c in have for c in _pose("base_")) else ""
    return prefix, "Vs" if f"{prefix}Vs_wx" in have and f"{prefix}Vb_wx" not in have else "Vb"


def twist_orders(names: list[str], most: int, *, own_file: bool = False) -> int:
    """How many twist derivative orders (``Vb``, ``Vbd``, ...; at most ``most``) a base
    motion with the columns ``names`` (a trajectory file's, or a ``--base-motion`` file's:
    ``own_file``) has complete.

    >>> twist_orders(["t"] + [f"base_Vb_{s}" for s in TWIST], 3)
    1
    """
    prefix, twist = _naming(names, own_file)
    k = 0
    while k < most and all(f"{prefix}{derivative_name(twist, k)}_{s}" in names for s in TWIST):
        k += 1
    return k


class BaseMotionReader(Lockstep):
    """The base motion in ``path`` (a trajectory file with ``base_`` columns, or a
    ``--base-motion`` file: ``own_file``, its columns with or without the prefix), taken in
    lockstep with a trajectory's chunks.

    Checked as it streams: finite values, R a rotation, the same number of samples and
    the same ``t`` as the trajectory. ``orders`` twist orders, or up to ``most`` where the
    file has them (its header read once: ``-``, stdin or the ``stdin`` stream in its place,
    can be read once). ``rows``: an HDF5 file's samples per read block (the trajectory's
    chunk, so that the two readers hold as many rows).
    """

    def __init__(self, path: str, orders: int, stdin=None, *, own_file: bool = False,
                 rows: int = BLOCK_ROWS, most: int = 0):
        table = open_table(path, stdin, rows)
        try:
            self.orders = max(orders, twist_orders(list(table.names), most, own_file=own_file))
            columns, self.twist = plan_base(table.names, self.orders, path, own_file=own_file,
                                            hdf5=isinstance(table, Hdf5Table))
            self.prefix = _naming(table.names, own_file)[0]   # what its errors name
        except BaseException:
            table.close()
            raise
        super().__init__(path, table, columns)

    def take(self, n: int, t: np.ndarray | None) -> LinkMotion:  # type: ignore[override]
        """The next ``n`` samples (the trajectory's chunk at times ``t``): pose and the body
        (``Vb``) or spatial (``Vs``) twist with its derivatives, (n, orders, 6)."""
        start = self.start
        block = super().take(n, t)
        p = np.ascontiguousarray(block[:, :3])
        R = np.ascontiguousarray(block[:, 3:12]).reshape(n, 3, 3)
        V = np.ascontiguousarray(block[:, 12:]).reshape(n, self.orders, 6)
        try:
            check_base(R, p, V, start, self.prefix)
        except TrajectoryError as e:
            raise TrajectoryError(e.message, self.path) from None
        twists = {"Vb": V} if self.twist == "Vb" else {"Vs": V}
        return LinkMotion(p, R, t=t, **twists)
