"""Trajectory and result files (SPEC.md, "Trajectory files" and "External wrenches").

CSV: a header row; ``t`` (optional), ``q_J``, ``qd_J``, ... for every joint J, and
optionally ``W_<link>_mx`` ... ``Wdd_<link>_fz``. HDF5: datasets ``t``, ``q``, ``qd``, ...
(N x n) with root attribute ``joint_names``, and ``wrench/<link>/W``, ``Wd``, ``Wdd``; or,
for high orders, the compact ``q_derivatives`` (N x (D+1) x n: q and its first D
derivatives) instead of ``q``, ``qd``, ... (:data:`COMPACT`).

Results are written atomically: a temporary file in the target directory, renamed
over the target only when complete, so a failed run never leaves a half-written file.
"""

from __future__ import annotations

import csv
import io
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from hodyn_cli.errors import HodynError, TrajectoryError
from hodyn_cli.model import Model
from hodyn_cli.trajectory import Trajectory, Wrenches, derivative_name

__all__ = [
    "read_trajectory", "read_wrenches", "write_result", "write_trajectory", "format_csv",
    "file_format",
]

WRENCH_COMPONENTS = ("mx", "my", "mz", "fx", "fy", "fz")
#: HDF5 dataset holding q and all its derivatives, (N, D+1, n): [s, k, j] = d^k q_j / dt^k
COMPACT = "q_derivatives"
_Q_COLUMN = re.compile(r"^q(d*)_(.+)$")
_W_COLUMN = re.compile(r"^W(d*)_(.+)_(mx|my|mz|fx|fy|fz)$")


def file_format(path: str) -> str:
    """'csv' or 'hdf5' from a file name ('-' is CSV on stdin/stdout)."""
    suffix = Path(path).suffix.lower()
    if path == "-" or suffix == ".csv":
        return "csv"
    if suffix in (".h5", ".hdf5"):
        return "hdf5"
    raise HodynError(f"unknown file type '{suffix or path}' (use .csv, .h5, .hdf5 or -)", path)


def _listing(names: list[str], limit: int = 6) -> str:
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


# -- reading ---------------------------------------------------------------------------------


def read_trajectory(path: str, model: Model, *, need: int = 1, stdin=None) -> Trajectory:
    """Read a trajectory for ``model``; ``need`` = number of q derivative orders required
    (q..qdddd is 5). Wrench columns/datasets, if any, are read too."""
    if file_format(path) == "hdf5":
        table = _read_hdf5(path)
    else:
        table = _read_csv(path, stdin)
    return _assemble(table, path, model, need)


def read_wrenches(path: str, model: Model, n_samples: int, *, stdin=None) -> Wrenches:
    """Read a separate wrench file (``--wrench``): only wrench columns/datasets (and t)."""
    table = _read_hdf5(path) if file_format(path) == "hdf5" else _read_csv(path, stdin)
    extra = [c for c in table if c != "t" and not _W_COLUMN.match(c)]
    if extra:
        raise TrajectoryError(f"column '{extra[0]}' does not belong in a wrench file", path)
    W = _wrenches(table, path, model)
    if any(w.shape[0] != n_samples for w in W.W.values()):
        raise TrajectoryError(f"has {_n_rows(table)} samples, the trajectory {n_samples}", path)
    return W


def _n_rows(table: dict[str, np.ndarray]) -> int:
    return len(next(iter(table.values())))


def _read_csv(path: str, stdin=None) -> dict[str, np.ndarray]:
    """Columns of a CSV file (or stdin for '-') as float arrays, checked cell by cell."""
    try:
        if path == "-":
            text = (stdin if stdin is not None else sys.stdin).read()
        else:
            text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise TrajectoryError(f"cannot read: {getattr(e, 'strerror', None) or e}", path) from None
    rows = [r for r in csv.reader(io.StringIO(text)) if r and any(c.strip() for c in r)]
    if not rows:
        raise TrajectoryError("empty file (expected a header row)", path)
    header = [h.strip() for h in rows[0]]
    seen = set()
    for h in header:
        if not h:
            raise TrajectoryError("empty column name in the header", path)
        if h in seen:
            raise TrajectoryError(f"column '{h}' appears twice", path)
        seen.add(h)
    body = rows[1:]
    if not body:
        raise TrajectoryError("no data rows after the header", path)
    for line, r in enumerate(body, start=2):
        if len(r) != len(header):
            raise TrajectoryError(f"line {line} has {len(r)} fields, the header {len(header)}",
                                  path)
    try:
        data = np.array(body, dtype=float)
    except ValueError:
        for line, r in enumerate(body, start=2):
            for name, cell in zip(header, r, strict=True):
                try:
                    float(cell)
                except ValueError:
                    raise TrajectoryError(f"line {line}, column '{name}': '{cell}' is not a "
                                          "number", path) from None
        raise
    return {h: data[:, c] for c, h in enumerate(header)}


def _read_hdf5(path: str) -> dict[str, np.ndarray]:
    """Datasets of a trajectory HDF5 file, flattened to CSV-like columns."""
    import h5py

    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise TrajectoryError(f"cannot open as HDF5: {e}", path) from None
    with f:
        table: dict[str, np.ndarray] = {}
        names = f.attrs.get("joint_names")
        q_sets = [k for k in f.keys() if re.fullmatch(r"qd*", k) or k == COMPACT]
        if q_sets and names is None:
            raise TrajectoryError("root attribute 'joint_names' is missing", path)
        if names is not None:
            names = [n.decode() if isinstance(n, bytes) else str(n) for n in np.atleast_1d(names)]
        for key in f.keys():
            obj = f[key]
            if key == "t":
                table["t"] = _dataset(obj, path, key, 1)
            elif re.fullmatch(r"qd*", key):
                d = _dataset(obj, path, key, 2)
                if d.shape[1] != len(names):
                    raise TrajectoryError(f"dataset '{key}' has {d.shape[1]} columns, "
                                          f"joint_names {len(names)}", path)
                for c, name in enumerate(names):
                    table[f"{key}_{name}"] = d[:, c]
            elif key == COMPACT:
                d = _dataset(obj, path, key, 3)
                if d.shape[2] != len(names):
                    raise TrajectoryError(f"dataset '{key}' has {d.shape[2]} joints, "
                                          f"joint_names {len(names)}", path)
                if any(re.fullmatch(r"qd*", k) for k in f.keys()):
                    raise TrajectoryError(f"has both '{key}' and q, qd, ... datasets: keep one",
                                          path)
                for k in range(d.shape[1]):
                    for c, name in enumerate(names):
                        table[f"{derivative_name('q', k)}_{name}"] = d[:, k, c]
            elif key == "wrench":
                for link in obj.keys():
                    for wkey in obj[link].keys():
                        if not re.fullmatch(r"Wd*", wkey):
                            raise TrajectoryError(f"unexpected dataset 'wrench/{link}/{wkey}'",
                                                  path)
                        d = _dataset(obj[link][wkey], path, f"wrench/{link}/{wkey}", 2)
                        if d.shape[1] != 6:
                            raise TrajectoryError(f"dataset 'wrench/{link}/{wkey}' must be N x 6"
                                                  f", is {d.shape[0]} x {d.shape[1]}", path)
                        for c, comp in enumerate(WRENCH_COMPONENTS):
                            table[f"{wkey}_{link}_{comp}"] = d[:, c]
            else:
                raise TrajectoryError(f"unexpected dataset or group '{key}'", path)
    if not table:
        raise TrajectoryError("no datasets", path)
    lengths = {len(v) for v in table.values()}
    if len(lengths) > 1:
        raise TrajectoryError(f"datasets differ in length ({sorted(lengths)})", path)
    return table


def _dataset(obj, path: str, key: str, ndim: int) -> np.ndarray:
    import h5py

    if not isinstance(obj, h5py.Dataset):
        raise TrajectoryError(f"'{key}' is a group, expected a dataset", path)
    if obj.ndim != ndim:
        raise TrajectoryError(f"dataset '{key}' has {obj.ndim} dimensions, expected {ndim}", path)
    try:
        return np.asarray(obj[()], dtype=float)
    except (TypeError, ValueError):
        raise TrajectoryError(f"dataset '{key}' is not numeric", path) from None


def _check_values(table: dict[str, np.ndarray], path: str) -> None:
    for name, col in table.items():
        bad = np.flatnonzero(~np.isfinite(col))
        if bad.size:
            raise TrajectoryError(f"column '{name}', sample {bad[0]}: value {col[bad[0]]} is "
                                  "not finite", path)
    if "t" in table:
        dt = np.diff(table["t"])
        bad = np.flatnonzero(dt <= 0)
        if bad.size:
            raise TrajectoryError(f"column 't' is not increasing at sample {bad[0] + 1} "
                                  f"({table['t'][bad[0]]} then {table['t'][bad[0] + 1]})", path)


def _assemble(table: dict[str, np.ndarray], path: str, model: Model, need: int) -> Trajectory:
    _check_values(table, path)
    joints = set(model.joint_names)
    orders: dict[int, set[str]] = {}
    for name in table:
        if name == "t" or _W_COLUMN.match(name):
            continue
        m = _Q_COLUMN.match(name)
        if not m:
            raise TrajectoryError(f"column '{name}' is not t, q.._<joint> or W.._<link>_<mx..fz>",
                                  path)
        if m.group(2) not in joints:
            raise TrajectoryError(f"column '{name}': the model has no joint '{m.group(2)}'", path)
        orders.setdefault(len(m.group(1)), set()).add(m.group(2))
    missing = [derivative_name("q", k) + "_" + j for k in range(need) for j in model.joint_names
               if j not in orders.get(k, ())]
    if missing:
        raise TrajectoryError(f"missing columns {_listing(missing)} (need q up to "
                              f"{derivative_name('q', need - 1)} for every joint)", path)
    D = need
    while D in orders and orders[D] == joints:
        D += 1
    derivs = np.stack([np.stack([table[derivative_name("q", k) + "_" + j]
                                 for j in model.joint_names], axis=-1) for k in range(D)], axis=1)
    W = _wrenches(table, path, model)
    return Trajectory(model.joint_names, derivs, table.get("t"), W if W.W else None)


def _wrenches(table: dict[str, np.ndarray], path: str, model: Model) -> Wrenches:
    found: dict[str, dict[int, set[str]]] = {}
    for name in table:
        m = _W_COLUMN.match(name)
        if m:
            if m.group(2) not in model.links:
                raise TrajectoryError(f"column '{name}': the model has no link '{m.group(2)}'",
                                      path)
            found.setdefault(m.group(2), {}).setdefault(len(m.group(1)), set()).add(m.group(3))
    W = {}
    for link, orders in found.items():
        D = 0
        while D in orders and orders[D] == set(WRENCH_COMPONENTS):
            D += 1
        partial = [derivative_name("W", k) + f"_{link}_{c}" for k in sorted(orders)
                   for c in WRENCH_COMPONENTS if c not in orders[k] or k >= D]
        if partial:
            raise TrajectoryError(f"incomplete wrench columns: missing or out of order "
                                  f"{_listing(partial)}", path)
        W[link] = np.stack([np.stack([table[derivative_name("W", k) + f"_{link}_{c}"]
                                      for c in WRENCH_COMPONENTS], axis=-1) for k in range(D)],
                           axis=1)
    return Wrenches(W)


# -- writing ---------------------------------------------------------------------------------


def result_datasets(result: np.ndarray, joint_names) -> tuple[dict, dict]:
    """A torque result (N, K+1, n) as datasets ``tau, taud, ...`` (N, n) with column suffixes."""
    data = {derivative_name("tau", k): result[:, k, :] for k in range(result.shape[1])}
    return data, {name: list(joint_names) for name in data}


def elastic_datasets(result, joint_names) -> tuple[dict, dict]:
    """An :class:`~hodyn_cli.elastic.ElasticResult` as datasets ``u, ud, ..., theta, ...,
    taum, ...`` (N, n) with column suffixes (the joint names)."""
    data = {derivative_name(base, k): value[:, k, :]
            for base, value in (("u", result.u), ("theta", result.theta), ("taum", result.taum))
            for k in range(value.shape[1])}
    return data, {name: list(joint_names) for name in data}


def joint_wrench_datasets(F: np.ndarray, link_names) -> dict[str, np.ndarray]:
    """Joint wrenches (N, K+1, n, 6) as HDF5 datasets ``joint_wrench/<link>/F``, ``Fd``, ...

    Each (N, 6) is (moment; force) the parent exerts on the link through its joint, in the
    link's frame, moment about its origin.
    """
    return {f"joint_wrench/{link}/{derivative_name('F', k)}": F[:, k, i]
            for i, link in enumerate(link_names) for k in range(F.shape[1])}


MATRIX_NOTES = {
    "M": "mass matrix M(q); M_d, M_dd, ...: its time derivatives",
    "C": "Coriolis matrix of Mueller & Kumar eq. (22): C = -J^T (M A a + b^T M) J; "
         "tau = M qdd + C qd + g + Q_ext",
    "Cbar": "Coriolis matrix of eq. (54): Cbar = C + J^T M b J, Cbar qd = C qd, "
            "M_d = Cbar + Cbar^T (M_d - 2 Cbar skew-symmetric)",
    "g": "generalized gravity forces Q_grav(q)",
    "Q_ext": "generalized forces of the external wrenches, +J^T W (present if wrenches were given)",
}


def matrix_datasets(E, with_wrenches: bool) -> tuple[dict, dict]:
    """EOM matrices as HDF5 datasets ``M, M_d, M_dd, C, ..., Cbar, ..., g, ..., Q_ext, ...``
    (N x n x n or N x n); ``E`` is :class:`hodyn_cli.methods.closed_form.EOMMatrices`."""
    data = {}
    names = ("M", "C", "Cbar", "g") + (("Q_ext",) if with_wrenches else ())
    for name in names:
        value = getattr(E, name)
        for k in range(value.shape[1]):
            data[name + ("_" + "d" * k if k else "")] = value[:, k]
    return data, {}


def csv_text(datasets: dict[str, np.ndarray], suffixes: dict[str, list[str]], t=None) -> str:
    """CSV with ``t`` (if given), then ``<dataset>_<suffix>`` columns (full precision).

    Each dataset is (N, ...); its trailing axes are flattened in C order and named by
    ``suffixes[dataset]``.
    """
    names = ["t"] if t is not None else []
    blocks = [np.asarray(t)[:, None]] if t is not None else []
    for key, value in datasets.items():
        flat = value.reshape(value.shape[0], -1)
        if flat.shape[1] != len(suffixes[key]):
            raise ValueError(f"dataset {key}: {flat.shape[1]} columns, {len(suffixes[key])} names")
        names += [f"{key}_{s}" for s in suffixes[key]]
        blocks.append(flat)
    buf = io.StringIO()
    buf.write(",".join(names) + "\n")
    np.savetxt(buf, np.hstack(blocks), fmt="%.17g", delimiter=",")
    return buf.getvalue()


def format_csv(result: np.ndarray, joint_names, t=None) -> str:
    """CSV text of a result (N, K+1, n): ``t``, then tau_J, taud_J, ... (full precision)."""
    return csv_text(*result_datasets(result, joint_names), t)


@contextmanager
def atomic_path(path: str) -> Iterator[str]:
    """Yield a temporary path next to ``path``; on success rename it over ``path``."""
    target = Path(path)
    if not target.parent.is_dir():
        raise HodynError(f"directory '{target.parent}' does not exist", path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    try:
        yield tmp
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; give the file normal permissions
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_datasets(path: str, datasets: dict[str, np.ndarray], suffixes: dict[str, list[str]],
                   t=None, attrs: dict | None = None, extra: dict[str, np.ndarray] | None = None
                   ) -> None:
    """Write named (N, ...) arrays to .csv (see :func:`csv_text`) or .h5, atomically.

    ``extra`` datasets go to HDF5 only (e.g. per-link groups); attrs become HDF5
    root attributes (lists of strings as string arrays).
    """
    fmt = file_format(path)
    with atomic_path(path) as tmp:
        if fmt == "csv":
            Path(tmp).write_text(csv_text(datasets, suffixes, t))
            return
        import h5py

        with h5py.File(tmp, "w") as f:
            if t is not None:
                f.create_dataset("t", data=t)
            for key, value in {**datasets, **(extra or {})}.items():
                f.create_dataset(key, data=value)
            for key, value in (attrs or {}).items():
                is_names = isinstance(value, list | tuple) and value and isinstance(value[0], str)
                f.attrs[key] = np.array(list(value), dtype=h5py.string_dtype()) if is_names else value


def write_result(path: str, result: np.ndarray, joint_names, t=None,
                 attrs: dict | None = None, extra: dict[str, np.ndarray] | None = None) -> None:
    """Write a result (N, K+1, n) to a .csv or .h5/.hdf5 file, atomically."""
    data, suffixes = result_datasets(result, joint_names)
    write_datasets(path, data, suffixes, t, {"joint_names": list(joint_names), **(attrs or {})},
                   extra)


def write_trajectory(path: str, trajectory: Trajectory, *, compact: bool = False) -> None:
    """Write a trajectory (and its wrenches) as CSV or HDF5, atomically.

    ``compact``: HDF5 with one dataset :data:`COMPACT` instead of ``q``, ``qd``, ...
    """
    fmt = file_format(path)
    D, names = trajectory.orders, trajectory.joint_names
    with atomic_path(path) as tmp:
        if fmt == "csv":
            cols = ["t"] if trajectory.t is not None else []
            cols += [f"{derivative_name('q', k)}_{j}" for k in range(D) for j in names]
            data = [trajectory.t[:, None]] if trajectory.t is not None else []
            data.append(trajectory.derivatives.reshape(trajectory.n_samples, -1))
            if trajectory.wrenches is not None:
                for link, W in trajectory.wrenches.W.items():
                    cols += [f"{derivative_name('W', k)}_{link}_{c}" for k in range(W.shape[1])
                             for c in WRENCH_COMPONENTS]
                    data.append(W.reshape(W.shape[0], -1))
            buf = io.StringIO()
            buf.write(",".join(cols) + "\n")
            np.savetxt(buf, np.hstack(data), fmt="%.17g", delimiter=",")
            Path(tmp).write_text(buf.getvalue())
            return
        import h5py

        with h5py.File(tmp, "w") as f:
            f.attrs["joint_names"] = np.array(list(names), dtype=h5py.string_dtype())
            if trajectory.t is not None:
                f.create_dataset("t", data=trajectory.t)
            if compact:
                f.create_dataset(COMPACT, data=trajectory.derivatives)
            for k in range(0 if compact else D):
                f.create_dataset(derivative_name("q", k), data=trajectory.derivatives[:, k])
            if trajectory.wrenches is not None:
                for link, W in trajectory.wrenches.W.items():
                    for k in range(W.shape[1]):
                        f.create_dataset(f"wrench/{link}/{derivative_name('W', k)}",
                                         data=W[:, k])
