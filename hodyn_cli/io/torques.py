"""Joint torques from elsewhere (a controller's log, another library, a feed-forward table),
read in lockstep with a trajectory: ``hodyn validate --torques``.

The columns are those ``hodyn compute`` writes: CSV ``t`` (where the trajectory has it),
``tau_<joint>`` and optionally ``taud_<joint>``, ``taudd_<joint>`` for every independent
joint (a mimic joint has none: its leader's column carries it; a locked joint none either);
HDF5 datasets ``t``, ``tau``, ``taud``, ``taudd`` (N x n) with root attribute
``joint_names``. A derivative order is read where every joint has it (tau..taudd); other
columns are passed over with a notice. The samples are the trajectory's, row for row: the
same number, and where both files have ``t`` the same times (to 1e-9 relative).

>>> from pathlib import Path
>>> from hodyn_cli.modeling.urdf import load_model
>>> model = load_model(Path(__file__).parents[2] / "urdf" / "planar_2r.urdf")
>>> plan_torques(["t", "tau_joint1", "tau_joint2", "taud_joint1", "taud_joint2", "q_joint1"],
...              model, 3, "tau.csv")
(['t', 'tau_joint1', 'tau_joint2', 'taud_joint1', 'taud_joint2'], 2, ['q_joint1'])
>>> plan_torques(["tau_joint1", "tau_joint3"], model, 3, "tau.csv")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
hodyn_cli.errors.TrajectoryError: tau.csv: column 'tau_joint3': the model has no joint ...
"""

from __future__ import annotations

import difflib

import numpy as np

from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import derivative_name
from hodyn_cli.errors import TrajectoryError
from hodyn_cli.io.columns import TAU_COLUMN
from hodyn_cli.io.lockstep import Lockstep
from hodyn_cli.io.paths import listing
from hodyn_cli.io.tables import open_table

__all__ = ["TorqueReader", "plan_torques", "MOST"]

#: torque orders read: tau, taud, taudd (what ``hodyn compute`` writes by default)
MOST = 3


def plan_torques(names: list[str], model: Model, most: int, source: str, hdf5: bool = False
                 ) -> tuple[list[str], int, list[str]]:
    """``(columns, orders, ignored)`` of a torque file with columns ``names``: the columns
    read (``t`` first if present, then tau of every independent joint, taud, ... up to
    ``most`` orders, each complete), how many orders, and the columns passed over. A
    one-line error names a column of no joint, of a mimic joint, or what is missing (in an
    HDF5 file's words with ``hdf5``)."""
    coordinates = model.coordinate_names
    have: dict[int, set[str]] = {}
    ignored = []
    for name in names:
        m = TAU_COLUMN.match(name)
        if name == "t":
            continue
        if not m or len(m.group(1)) >= most or m.group(2) in model.locked:
            ignored.append(name)  # not a torque, one beyond taudd, or a locked joint's
            continue
        joint = m.group(2)
        if joint not in coordinates:
            if joint in model.joint_names:
                raise TrajectoryError(f"column '{name}': '{joint}' is a mimic joint; its torque "
                                      "is carried by its leader's column, as hodyn compute "
                                      "writes it", source)
            close = difflib.get_close_matches(joint, model.joint_names, n=1, cutoff=0.75)
            hint = f" (a typo of '{close[0]}'?)" if close else ""
            raise TrajectoryError(f"column '{name}': the model has no joint '{joint}'{hint}",
                                  source)
        have.setdefault(len(m.group(1)), set()).add(joint)
    missing = [j for j in coordinates if j not in have.get(0, ())]
    if missing and hdf5:
        raise TrajectoryError(f"no torques of joint(s) {listing(missing)} (dataset 'tau', "
                              "N x n in the order of root attribute 'joint_names', as hodyn "
                              "compute writes)", source)
    if missing:
        raise TrajectoryError(f"missing columns {listing([f'tau_{j}' for j in missing])} (the "
                              "torque of every independent joint: tau_<joint>, as hodyn "
                              "compute writes)", source)
    orders = 1
    while orders in have and have[orders] == set(coordinates):
        orders += 1
    partial = [f"{derivative_name('tau', k)}_{j}" for k in sorted(have) if k >= orders
               for j in coordinates if j not in have[k]]
    if partial:
        raise TrajectoryError(f"missing columns {listing(partial)} (each derivative of tau "
                              f"for every joint, in order, or for none)", source)
    columns = (["t"] if "t" in names else []) + [
        f"{derivative_name('tau', k)}_{j}" for k in range(orders) for j in coordinates]
    return columns, orders, ignored


class TorqueReader(Lockstep):
    """The torques in ``path`` (a CSV or HDF5 file as :func:`plan_torques` reads it), taken
    in lockstep with a trajectory's chunks (:meth:`take`); checked as they stream: finite
    values, the trajectory's number of samples and its ``t``. ``orders``: tau, taud, ...
    read; ``ignored``: the columns passed over. ``stdin``: a stream in place of standard
    input (``path`` ``-``)."""

    def __init__(self, path: str, model: Model, most: int = MOST, stdin=None):
        self.m = len(model.coordinates)
        table = open_table(path, stdin)
        try:
            columns, self.orders, self.ignored = plan_torques(
                list(table.names), model, most, path, table.n_rows is not None)
        except BaseException:
            table.close()
            raise
        super().__init__(path, table, columns)

    def take(self, n: int, t: np.ndarray | None) -> np.ndarray:
        """The torques and their derivatives at the next ``n`` samples (the trajectory's
        chunk at times ``t``): (n, orders, m), the independent joints in model order."""
        return np.ascontiguousarray(super().take(n, t)).reshape(n, self.orders, self.m)
