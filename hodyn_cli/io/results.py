"""What each command writes: named datasets (N, ...) and their CSV column names."""

from __future__ import annotations

import numpy as np

from hodyn_cli.core.trajectory import Trajectory, derivative_name
from hodyn_cli.io.columns import WRENCH_COMPONENTS
from hodyn_cli.io.tables import COMPACT
from hodyn_cli.io.writers import open_sink

MATRIX_NOTES = {
    "M": "mass matrix M(q); M_d, M_dd, ...: its time derivatives",
    "C": "Coriolis matrix of Mueller & Kumar eq. (22): C = -J^T (M A a + b^T M) J; "
         "tau = M qdd + C qd + g + Q_ext",
    "Cbar": "Coriolis matrix of eq. (54): Cbar = C + J^T M b J, Cbar qd = C qd, "
            "M_d = Cbar + Cbar^T (M_d - 2 Cbar skew-symmetric)",
    "g": "generalized gravity forces Q_grav(q)",
    "Q_ext": "generalized forces of the external wrenches, +J^T W (present if wrenches were given)",
}


def timed_columns(columns: dict[str, list[str]], has_t: bool) -> dict[str, list[str]]:
    """Output columns, ``t`` first when the input has it."""
    return {"t": ["t"], **columns} if has_t else columns


def with_t(data: dict[str, np.ndarray], t) -> dict[str, np.ndarray]:
    """The datasets, ``t`` first when there is one."""
    return data if t is None else {"t": t, **data}


def derivative_columns(base: str, top: int, joint_names) -> dict[str, list[str]]:
    """CSV columns of ``base, based, ...`` up to ``top`` d's: ``{"taud": ["taud_<joint>", ...]}``."""
    names = (derivative_name(base, k) for k in range(top + 1))
    return {name: [f"{name}_{j}" for j in joint_names] for name in names}


def derivative_datasets(base: str, value: np.ndarray, joint_names) -> tuple[dict, dict]:
    """(N, K+1, n) as datasets ``base, based, basedd, ...`` with columns ``base_<joint>``."""
    data = {derivative_name(base, k): value[:, k, :] for k in range(value.shape[1])}
    return data, derivative_columns(base, value.shape[1] - 1, joint_names)


def torque_datasets(result: np.ndarray, joint_names) -> tuple[dict, dict]:
    """A torque result (N, K+1, n) as ``tau, taud, ...``."""
    return derivative_datasets("tau", result, joint_names)


def elastic_datasets(result, joint_names) -> tuple[dict, dict]:
    """An :class:`~hodyn_cli.algorithms.elastic.ElasticResult` as ``u, ud, ..., theta, ..., taum, ...``."""
    data, columns = {}, {}
    for base in ("u", "theta", "taum"):
        d, c = derivative_datasets(base, getattr(result, base), joint_names)
        data |= d
        columns |= c
    return data, columns


def joint_wrench_datasets(F: np.ndarray, link_names) -> dict[str, np.ndarray]:
    """Joint wrenches (N, K+1, n, 6) as HDF5 datasets ``joint_wrench/<link>/F``, ``Fd``, ...

    Each (N, 6) is (moment; force) the parent exerts on the link through its joint, in the
    link's frame, moment about its origin.
    """
    return {f"joint_wrench/{link}/{derivative_name('F', k)}": F[:, k, i]
            for i, link in enumerate(link_names) for k in range(F.shape[1])}


def rate_name(name: str, k: int) -> str:
    """Dataset name of the k-th time derivative of a matrix-valued quantity: ``M``, ``M_d``,
    ``M_dd``, ... (``_`` keeps ``C_d`` apart from a quantity called ``Cd``).

    >>> [rate_name("Y", k) for k in range(3)]
    ['Y', 'Y_d', 'Y_dd']
    """
    return name + ("_" + "d" * k if k else "")


def matrix_datasets(E, with_wrenches: bool) -> dict[str, np.ndarray]:
    """EOM matrices as HDF5 datasets ``M, M_d, M_dd, C, ..., Cbar, ..., g, ..., Q_ext, ...``
    (N x n x n or N x n); ``E`` is :class:`hodyn_cli.algorithms.methods.closed_form.EOMMatrices`."""
    data = {}
    names = ("M", "C", "Cbar", "g") + (("Q_ext",) if with_wrenches else ())
    for name in names:
        value = getattr(E, name)
        for k in range(value.shape[1]):
            data[rate_name(name, k)] = value[:, k]
    return data


def trajectory_datasets(trajectory: Trajectory, compact: bool = False) -> tuple[dict, dict]:
    """A trajectory (and its wrenches) as datasets and CSV columns (``compact``: HDF5's
    ``q_derivatives`` instead of ``q``, ``qd``, ...)."""
    names = trajectory.joint_names
    if compact:
        data, columns = {COMPACT: trajectory.derivatives}, {}
    else:
        data, columns = derivative_datasets("q", trajectory.derivatives, names)
    if trajectory.wrenches is not None:
        for link, W in trajectory.wrenches.W.items():
            for k in range(W.shape[1]):
                key = f"wrench/{link}/{derivative_name('W', k)}"
                data[key] = W[:, k]
                columns[key] = [f"{derivative_name('W', k)}_{link}_{c}" for c in WRENCH_COMPONENTS]
    return with_t(data, trajectory.t), timed_columns(columns, trajectory.t is not None)


def write_trajectory(path: str, trajectory: Trajectory, *, compact: bool = False) -> None:
    """Write a trajectory (and its wrenches) as CSV or HDF5, atomically.

    ``compact``: HDF5 with one dataset ``q_derivatives`` (N, D+1, n) instead of ``q``, ``qd``, ...
    """
    data, columns = trajectory_datasets(trajectory, compact)
    with open_sink(path, columns, {"joint_names": list(trajectory.joint_names)}) as sink:
        sink.write(data)
