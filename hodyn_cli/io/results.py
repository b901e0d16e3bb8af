"""What the commands write: named datasets (N, ...) and the CSV column names of each.

A result is a dict of named arrays over samples (the fields of a
:class:`hodyn_cli.api.Result`, plus ``t``); these functions name the CSV columns of each
dataset (its trailing axes flattened in C order) and the HDF5 datasets that have no CSV form.
"""

from __future__ import annotations

import numpy as np

from hodyn_cli.core import lie
from hodyn_cli.core.model import DOF_SUFFIXES, Model
from hodyn_cli.core.trajectory import Trajectory, derivative_name
from hodyn_cli.errors import TrajectoryError
from hodyn_cli.io.base_motion import check_poses_apart
from hodyn_cli.io.columns import (
    FLAG_PREFIX,
    MOMENTUM,
    WRENCH_COMPONENTS,
    XYZ,
    motion_suffixes,
    pose_columns,
)
from hodyn_cli.io.paths import file_format
from hodyn_cli.io.tables import COMPACT
from hodyn_cli.io.writers import open_sink

__all__ = ["MATRIX_NOTES", "DERIVATIVE_NOTES", "timed_columns", "with_t", "derivative_columns",
           "motion_columns", "joint_wrench_datasets", "trajectory_datasets", "joint_datasets",
           "write_trajectory", "unposed_joint",
           "contact_datasets", "base_datasets", "pose_datasets"]

MATRIX_NOTES = {
    "M": "mass matrix M(q); M_d, M_dd, ...: its time derivatives",
    "C": "Coriolis matrix of Mueller & Kumar eq. (22): C = -J^T (M A a + b^T M) J; "
         "tau = M qdd + C qd + g + Q_ext",
    "Cbar": "Coriolis matrix of eq. (54): Cbar = C + J^T M b J, Cbar qd = C qd, "
            "M_d = Cbar + Cbar^T (M_d - 2 Cbar skew-symmetric)",
    "g": "generalized gravity forces Q_grav(q)",
    "Q_ext": "generalized forces of the external wrenches, +J^T W (present if wrenches were given)",
}


DERIVATIVE_NOTES = {
    **{f"d{m}_dq": f"d {m} / d q: [s, a, b, h] = d {m}_ab / d q_h (Garofalo eqs. (24), (31))"
       for m in ("M", "C", "Cbar")},
    **{f"d{m}_dqd": f"d {m} / d qd: [s, a, b, h] = d {m}_ab / d qd_h (eq. (24c))"
       for m in ("C", "Cbar")},
    "dg_dq": "d g / d q: [s, a, h] = d g_a / d q_h (eq. (24d))",
    "dQ_ext_dq": "d Q_ext / d q: [s, a, h] = d Q_ext_a / d q_h, wrenches fixed in the link frames",
    **{f"d{m}_dpi": f"d {m} / d pi: [s, a, b, p] = d {m}_ab / d pi_p, parameter_names order "
                    "(eq. (13); exact: linear in pi)" for m in ("M", "C", "Cbar")},
    "dg_dpi": "d g / d pi: [s, a, p] = d g_a / d pi_p, parameter_names order (eq. (13))",
}


def timed_columns(columns: dict[str, list[str]], has_t: bool) -> dict[str, list[str]]:
    """Output columns, ``t`` first when the input has it."""
    return {"t": ["t"], **columns} if has_t else columns


def with_t(data: dict[str, np.ndarray], t) -> dict[str, np.ndarray]:
    """The datasets, ``t`` first when there is one."""
    return data if t is None else {"t": t, **data}


def derivative_columns(base: str, top: int, joint_names) -> dict[str, list[str]]:
    """CSV columns of ``base, based, ...`` up to ``top`` d's: ``{"taud": ["taud_<joint>", ...]}``.

    >>> derivative_columns("tau", 1, ["a", "b"])
    {'tau': ['tau_a', 'tau_b'], 'taud': ['taud_a', 'taud_b']}
    """
    names = (derivative_name(base, k) for k in range(top + 1))
    return {name: [f"{name}_{j}" for j in joint_names] for name in names}


def motion_columns(keys) -> dict[str, list[str]]:
    """CSV columns of a link's motion datasets (``p``, ``R``, ``Vs``.., ``Vb``.., ``pd``..):
    ``R_12`` = row 1, column 2; ``Vs_wx`` = angular x, ``Vs_vx`` = linear x.

    >>> motion_columns(["p", "Vsd"])["Vsd"][:2]
    ['Vsd_wx', 'Vsd_wy']
    """
    return {key: [f"{key}_{s}" for s in motion_suffixes(key)] for key in keys}


def joint_wrench_datasets(F: np.ndarray, link_names) -> dict[str, np.ndarray]:
    """Joint wrenches (N, K+1, n, 6) as HDF5 datasets ``joint_wrench/<link>/F``, ``Fd``, ...

    Each (N, 6) is (moment; force) the parent exerts on the link through its joint, in the
    link's frame, moment about its origin.
    """
    return {f"joint_wrench/{link}/{derivative_name('F', k)}": F[:, k, i]
            for i, link in enumerate(link_names) for k in range(F.shape[1])}


def centroidal_columns(order: int) -> dict[str, list[str]]:
    """CSV columns of ``mass``, the centre of mass ``com``, ``comd``, ... (to order + 1) and
    the centroidal momentum ``h``, ``hd``, ... (to order; ``h_ax`` angular x about the centre
    of mass, ``h_lx`` linear x).

    >>> centroidal_columns(0)["h"][:4]
    ['h_ax', 'h_ay', 'h_az', 'h_lx']
    """
    com = {derivative_name("com", k): [f"{derivative_name('com', k)}_{s}" for s in XYZ]
           for k in range(order + 2)}
    h = {derivative_name("h", k): [f"{derivative_name('h', k)}_{s}" for s in MOMENTUM]
         for k in range(order + 1)}
    return {"mass": ["mass"], **com, **h}


def wrench_datasets(link: str, W: np.ndarray) -> tuple[dict, dict]:
    """A link's wrench and its derivatives (N, K+1, 6) as datasets ``wrench/<link>/W``,
    ``Wd``, ... and their CSV columns ``W_<link>_mx``, ..."""
    data, columns = {}, {}
    for k in range(W.shape[1]):
        key = f"wrench/{link}/{derivative_name('W', k)}"
        data[key] = W[:, k]
        columns[key] = [f"{derivative_name('W', k)}_{link}_{c}" for c in WRENCH_COMPONENTS]
    return data, columns


def contact_datasets(name: str, prefix: str, components, F: np.ndarray) -> tuple[dict, dict]:
    """A contact's wrench and its derivatives (N, K+1, len(components)) as datasets
    ``contact/<name>/<prefix>``, ``<prefix>d``, ... and their CSV columns
    ``<prefix>_<name>_<component>``, ... (``Fc_left_foot_fx``: a point's force)."""
    data, columns = {}, {}
    for k in range(F.shape[1]):
        key = f"contact/{name}/{derivative_name(prefix, k)}"
        data[key] = F[:, k]
        columns[key] = [f"{derivative_name(prefix, k)}_{name}_{c}" for c in components]
    return data, columns


def trajectory_datasets(trajectory: Trajectory, compact: bool = False) -> tuple[dict, dict]:
    """A trajectory (and its wrenches) as datasets and CSV columns (``compact``: HDF5's
    ``q_derivatives`` instead of ``q``, ``qd``, ...)."""
    names = trajectory.joint_names
    q = trajectory.derivatives
    if compact:
        data, columns = {COMPACT: q}, {}
    else:
        data = {derivative_name("q", k): q[:, k] for k in range(q.shape[1])}
        columns = derivative_columns("q", q.shape[1] - 1, names)
    if trajectory.wrenches is not None:
        for link, W in trajectory.wrenches.W.items():
            more, cols = wrench_datasets(link, W)
            data |= more
            columns |= cols
    return with_t(data, trajectory.t), timed_columns(columns, trajectory.t is not None)


def base_datasets(trajectory: Trajectory) -> tuple[dict, dict]:
    """A floating root's motion (``base_p``, ``base_R``, ``base_Vb``, ...) and the contact
    flags ``contact_<name>`` of a trajectory as datasets and CSV columns (none if it has
    neither)."""
    data: dict = {}
    columns: dict = {}
    base = trajectory.base
    if base is not None:
        keys = ["base_p", "base_R"] + [f"base_{derivative_name('Vb', k)}" for k in range(base.orders)]
        data |= dict(zip(keys, [base.p, base.R, *np.moveaxis(base.Vb, 1, 0)], strict=True))
        columns |= motion_columns(keys)
    for name, flag in (trajectory.series or {}).items():
        if name.startswith(FLAG_PREFIX) and flag.ndim == 1:
            data[name], columns[name] = flag, [name]
    return data, columns


def joint_datasets(path: str, trajectory: Trajectory, model: Model | None = None,
                   compact: bool = False) -> tuple[dict, dict]:
    """The joints' motion of a trajectory for the file ``path``: :func:`pose_datasets` for a
    ``model`` with multi-DOF joints (CSV only: an error naming ``path`` otherwise), else
    :func:`trajectory_datasets`."""
    if model is not None and model.multi_dof:
        if file_format(path) != "csv":
            raise TrajectoryError("the trajectory of a robot with multi-DOF joints is written "
                                  "as CSV (HDF5 datasets of joint poses are not defined yet)",
                                  path)
        return pose_datasets(model, trajectory)
    return trajectory_datasets(trajectory, compact)


def pose_datasets(model: Model, trajectory: Trajectory) -> tuple[dict, dict]:
    """The trajectory of a model with multi-DOF joints (over its velocity coordinates, row 0
    the configuration coordinates: docs/conventions.md) as CSV columns: the 1-DOF joints'
    ``q_<joint>``, each multi-DOF joint's pose (:func:`~hodyn_cli.io.columns.pose_columns`:
    its rotation vector as a rotation matrix), then ``qd_<dof>``, ... over the velocity
    coordinates, and its wrenches; what :class:`~hodyn_cli.io.reader.TrajectoryReader`
    reads."""
    q, o = trajectory.derivatives, model.dof_offsets
    one = [int(o[i]) for i, nv in enumerate(model.dofs) if nv == 1]
    data = {"q": q[:, 0, one]}
    columns = {"q": [f"q_{model.joint_names[i]}" for i, nv in enumerate(model.dofs) if nv == 1]}
    for i, kind in enumerate(model.joint_types):
        if model.dofs[i] == 1:
            continue
        c = q[:, 0, o[i] : o[i + 1]]
        if kind != "planar":
            R = lie.rotation_vector_exp(c[:, :3]).reshape(-1, 9)
            c = R if kind == "spherical" else np.concatenate([c[:, 3:], R], axis=1)
        key = f"{model.joint_names[i]}_pose"
        data[key], columns[key] = c, list(pose_columns(model, i))
    for k in range(1, q.shape[1]):
        data[derivative_name("q", k)] = q[:, k]
    columns |= {key: cols for key, cols in derivative_columns(
        "q", q.shape[1] - 1, model.dof_names).items() if key != "q"}
    if trajectory.wrenches is not None:  # (as trajectory_datasets writes them)
        for link, W in trajectory.wrenches.W.items():
            more, cols = wrench_datasets(link, W)
            data |= more
            columns |= cols
    return with_t(data, trajectory.t), timed_columns(columns, trajectory.t is not None)


def unposed_joint(names) -> str | None:
    """The joint ``J`` whose velocity coordinates ``J_wx, J_wy, J_wz`` (a ball joint's),
    ``J_vx, J_vy, J_wz`` (a planar one's) or the six of a free one
    (:data:`~hodyn_cli.core.model.DOF_SUFFIXES`) follow one another in ``names``, else None:
    without the model, coordinates that could be a multi-DOF joint's, whose row 0 is not
    written as ``q_`` columns (its pose is: :func:`pose_datasets`).

    >>> unposed_joint(["shoulder", "hip_wx", "hip_wy", "hip_wz"]), unposed_joint(["a_wx"])
    ('hip', None)
    """
    names = list(names)
    for suffixes in DOF_SUFFIXES.values():
        for i, name in enumerate(names[: len(names) - len(suffixes) + 1]):
            joint = name.removesuffix(f"_{suffixes[0]}")
            if name != joint and names[i : i + len(suffixes)] == [f"{joint}_{s}"
                                                                  for s in suffixes]:
                return joint
    return None


def write_trajectory(path: str, trajectory: Trajectory, *, compact: bool = False,
                     model: Model | None = None) -> None:
    """Write a trajectory (its wrenches, a floating root's motion ``base_p``, ``base_R``,
    ``base_Vb``, ... and contact flags: :func:`base_datasets`) as CSV or HDF5, atomically;
    :func:`~hodyn_cli.io.reader.read_trajectory` (``floating=True`` for the root's motion)
    reads it back. A robot without joints has no q columns: its trajectory is ``t`` and the
    root's motion. A ``model`` with multi-DOF joints: its joints' poses, CSV only
    (:func:`pose_datasets`).

    ``compact``: HDF5 with one dataset ``q_derivatives`` (N, D+1, n) instead of ``q``, ``qd``, ...

    A one-line error naming ``path`` where the file could not be read back: a trajectory of
    no samples (the reader refuses a file without data rows), or coordinates named as a
    multi-DOF joint's (``J_wx, J_wy, J_wz``, ...) without the ``model`` that says whether
    they are (:func:`unposed_joint`).
    """
    if trajectory.n_samples == 0:
        raise TrajectoryError("no samples to write (a trajectory file holds one at least: "
                              "read_trajectory refuses one without data rows)", path)
    if model is None and (joint := unposed_joint(trajectory.joint_names)) is not None:
        raise TrajectoryError(f"coordinates {joint}_.. are named as the velocity coordinates "
                              f"of a multi-DOF joint '{joint}', whose pose is written from the "
                              f"model (q_{joint}_.. columns are not read back): pass model=",
                              path)
    if model is not None and trajectory.base is not None:
        check_poses_apart(model, path)  # (else two columns of one name)
    data, columns = joint_datasets(path, trajectory, model, compact)
    more, cols = base_datasets(trajectory)
    with open_sink(path, columns | cols, {"joint_names": list(trajectory.joint_names)},
                   rows=trajectory.n_samples) as sink:
        sink.write(data | more)
