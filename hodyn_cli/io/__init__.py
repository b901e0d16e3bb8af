"""Files in and out, streamed (constant memory at any file size). A leaf of the library: io
imports the core data types (:mod:`hodyn_cli.core`) and nothing of the algorithms, the
pipeline or the command line.

Reading: :class:`TrajectoryReader` checks a file's columns once and yields
:class:`~hodyn_cli.core.trajectory.Trajectory` chunks; :func:`read_trajectory` reads it whole;
:class:`~hodyn_cli.io.motion.MotionReader` reads a link's motion. CSV: a header row; ``t``
(optional), ``q_J``, ``qd_J``, ... for every joint J, and optionally ``W_<link>_mx`` ...
``Wdd_<link>_fz``. HDF5: datasets ``t``, ``q``, ``qd``, ... (N x n) with root attribute
``joint_names``, and ``wrench/<link>/W``, ``Wd``, ``Wdd``; or, for high orders, the compact
``q_derivatives`` (N x (D+1) x n: q and its first D derivatives) instead of ``q``, ``qd``, ...

Reading on many threads: :meth:`TrajectoryReader.tasks` gives the chunks as tasks read on any
thread and settled in order (:mod:`hodyn_cli.io.tasks`); contiguous HDF5 datasets are read
and written at their offsets in the file, off h5py's lock (:mod:`hodyn_cli.io.offsets`).

Writing: :func:`open_sink` takes results chunk by chunk (CSV rows, HDF5 datasets allocated
whole when the sample count is known, else resizable), atomically;
:mod:`hodyn_cli.io.results` names the columns.
"""

from hodyn_cli.io.columns import WRENCH_COMPONENTS
from hodyn_cli.io.paths import atomic_path, file_format
from hodyn_cli.io.reader import (
    CHUNK_ROWS,
    MemoryReader,
    TrajectoryReader,
    concatenate,
    read_trajectory,
    split,
)
from hodyn_cli.io.results import (
    DERIVATIVE_NOTES,
    MATRIX_NOTES,
    trajectory_datasets,
    write_trajectory,
)
from hodyn_cli.io.tables import COMPACT
from hodyn_cli.io.writers import open_sink, write_datasets

__all__ = [
    "CHUNK_ROWS", "COMPACT", "DERIVATIVE_NOTES", "MATRIX_NOTES", "WRENCH_COMPONENTS",
    "MemoryReader", "TrajectoryReader",
    "atomic_path", "concatenate", "file_format", "open_sink", "read_trajectory", "split",
    "trajectory_datasets", "write_datasets", "write_trajectory",
]
