"""MuJoCo's state logs: the arrays ``qpos`` (N, nq), ``qvel`` (N, nv), optionally ``qacc``
(N, nv) and ``time`` (N,) as MuJoCo users save ``MjData``'s fields sample by sample, in a
NumPy ``.npz`` archive or an HDF5 file (datasets of those names at its top level).

Only the arrays are read here (checked for shape and finiteness, one line naming the file and
the array); what ``qpos`` means is the model's (MuJoCo's joint layout), mapped by
:func:`hodyn_cli.pipeline.mujoco_states.mujoco_trajectory`. An HDF5 log is read block by
block; an ``.npz`` member is loaded whole when first read (the format stores each array as
one compressed member).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from hodyn_cli.errors import HodynError

__all__ = ["MujocoLog", "is_mujoco_log", "MUJOCO_LOG_SUFFIXES", "STATE_ARRAYS"]

MUJOCO_LOG_SUFFIXES = (".npz", ".h5", ".hdf5")
#: the arrays of a log: qpos is needed, the others are read where present
STATE_ARRAYS = ("qpos", "qvel", "qacc")


def is_mujoco_log(path: str | Path) -> bool:
    """True for a file that :class:`MujocoLog` reads (by its suffix)."""
    return Path(path).suffix.lower() in MUJOCO_LOG_SUFFIXES


class MujocoLog:
    """A MuJoCo state log (a context manager): ``arrays`` (``qpos``, then ``qvel``, ``qacc``
    where present, in that order of derivatives: a ``qacc`` without ``qvel`` is an error),
    ``has_time``, ``n_samples``, ``widths`` (nq, nv); :meth:`blocks` yields ``{"time": (b,),
    "qpos": (b, nq), ...}``."""

    def __init__(self, path: str | Path):
        self.source = str(path)
        if not Path(path).is_file():
            raise HodynError("no such file", self.source)
        self._h5 = self._npz = None
        try:
            if Path(path).suffix.lower() == ".npz":
                self._npz = np.load(path, allow_pickle=False)
                self._data = _Members(self._npz)
                names = set(self._npz.files)
            else:
                import h5py

                self._h5 = h5py.File(path, "r")
                self._data = self._h5
                names = {k for k, v in self._h5.items() if isinstance(v, h5py.Dataset)}
        except (OSError, ValueError) as e:
            raise HodynError(f"cannot read as a MuJoCo log (.npz or HDF5): {e}", self.source
                             ) from None
        try:
            self._check(names)
        except BaseException:
            self.close()
            raise

    def _check(self, names: set[str]) -> None:
        if "qpos" not in names:
            raise HodynError("no array 'qpos' (a MuJoCo log has qpos, qvel and optionally "
                             f"qacc, time; this file has {', '.join(sorted(names)) or 'none'})",
                             self.source)
        if "qacc" in names and "qvel" not in names:
            raise HodynError("array 'qacc' without 'qvel'", self.source)
        self.arrays = tuple(a for a in STATE_ARRAYS if a in names)
        self.has_time = "time" in names
        shapes = {a: self._data[a].shape for a in self.arrays + ("time",) * self.has_time}
        for a in self.arrays:
            if len(shapes[a]) != 2:
                raise HodynError(f"array '{a}' has shape {shapes[a]}: (samples, {a} entries) "
                                 "expected", self.source)
        if self.has_time and len(shapes["time"]) != 1:
            raise HodynError(f"array 'time' has shape {shapes['time']}: (samples,) expected",
                             self.source)
        self.n_samples = shapes["qpos"][0]
        for a, shape in shapes.items():
            if shape[0] != self.n_samples:
                raise HodynError(f"array '{a}' has {shape[0]} samples, 'qpos' {self.n_samples}",
                                 self.source)
        if "qacc" in shapes and shapes["qacc"][1] != shapes["qvel"][1]:
            raise HodynError(f"array 'qacc' has {shapes['qacc'][1]} entries per sample, 'qvel' "
                             f"{shapes['qvel'][1]}", self.source)
        self.widths = (shapes["qpos"][1], shapes["qvel"][1] if "qvel" in shapes else None)

    def blocks(self, rows: int) -> Iterator[dict[str, np.ndarray]]:
        """The log's samples, ``rows`` at a time; a value that is not finite is an error
        naming the array, the sample and the entry."""
        for start in range(0, self.n_samples, rows):
            block = {a: np.asarray(self._data[a][start:start + rows], dtype=float)
                     for a in self.arrays + ("time",) * self.has_time}
            for a, values in block.items():
                bad = np.argwhere(~np.isfinite(values))
                if len(bad):
                    where = f"sample {start + bad[0][0]}" + (
                        f", entry {bad[0][1]}" if values.ndim == 2 else "")
                    raise HodynError(f"array '{a}': {values[tuple(bad[0])]} at {where}",
                                     self.source)
            yield block

    def __enter__(self) -> MujocoLog:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for opened in (self._h5, self._npz):
            if opened is not None:
                opened.close()


class _Members(dict):
    """An ``.npz`` archive's members, each decompressed once, when first asked for (the
    archive's own ``[]`` reads a member anew at every call)."""

    def __init__(self, archive):
        super().__init__()
        self.archive = archive

    def __missing__(self, name: str) -> np.ndarray:
        self[name] = self.archive[name]
        return self[name]
