"""``hodyn identify`` on files: the logs read (positions, their derivatives or estimates of
them, measured torques), :func:`hodyn_cli.api.identify` run on them, and the identified robot
written: its URDF with the new ``<inertial>`` elements, a drives file with the identified
friction and rotor inertias, and the report (JSON or HTML). Every output is written after
everything was computed, each atomically: an error leaves no output, and an existing one
as it was.

A log is a trajectory file (CSV or HDF5: ``t``, ``q_<joint>`` and, where present,
``qd_<joint>``, ``qdd_<joint>``) with the torques measured at its samples in the columns
``validate --torques`` reads (``tau_<joint>``; HDF5: dataset ``tau``) or, in a file
``hodyn import`` wrote, its ``effort_<joint>`` columns (HDF5: dataset ``effort``), or motor
currents ``current_<joint>`` (HDF5: dataset ``current``, as ``hodyn compute --drives`` writes
them) turned into the motor torques referred to the joints with the drives' constants,
``r eta k_t i``. A floating base's log has the root's motion (``base_`` columns) and the base
wrench ``W_<root>_mx, ..., _fz`` measured with the torques. It streams, chunk by chunk, into
the fit (:class:`Log`): memory does not grow with its length. With ``estimate`` the missing
derivatives are estimated (:func:`~hodyn_cli.api.estimation.derivative_stream`, window by
window) and the torques go through the same zero-phase low-pass as the positions
(``cutoff``), so that the two stay synchronous; the first and last samples where the
estimate is unreliable (its end zones) are left out.
"""

from __future__ import annotations

import html
import itertools
import json
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from hodyn_cli import api, capabilities
from hodyn_cli.api.robots import leaders_unwrapped
from hodyn_cli.core.gravity import GRAVITY
from hodyn_cli.core.model import Diagnostic, Model
from hodyn_cli.core.trajectory import Trajectory, Wrenches, derivative_name
from hodyn_cli.errors import HodynError, MissingDerivatives, ModelError, TrajectoryError
from hodyn_cli.io import CHUNK_ROWS, TrajectoryReader
from hodyn_cli.io.base_motion import BaseMotionReader
from hodyn_cli.io.columns import column_listing
from hodyn_cli.io.lockstep import Lockstep
from hodyn_cli.io.paths import file_format, listing, write_text
from hodyn_cli.io.toml_text import to_toml
from hodyn_cli.io.torques import TorqueReader
from hodyn_cli.pipeline.inputs import ESTIMATE_HINT
from hodyn_cli.pipeline.protocols import Notify, tell

__all__ = ["Log", "robot_text", "identify_files", "drives_table", "report_data",
           "default_drives_output"]

#: q derivative orders the regressor needs: q, qd, qdd (and one more per torque rate)
NEED = 3
#: the most torque rates a log's ``taud_<joint>``, ``taudd_<joint>`` columns give
RATES = 2
#: the measured torques a log may have instead of ``tau_<joint>``, and who writes them
MEASURED = {"effort": "hodyn import", "current": "hodyn compute --drives"}
#: the root attribute that names the columns of each one's HDF5 dataset
MEASURED_JOINTS = {"effort": "joint_names", "current": "current_joint_names"}


class Log:
    """A log opened for one pass (the module docstring says what it holds): iterating gives
    its samples as pairs of a motion (q, qd, qdd, one order more per torque rate; a floating
    root's ``base``) and the torques measured with it (n, m; with its ``rates`` K, the
    ``taud_<joint>``, ... columns: (n, K+1, m)), ``chunk`` samples at a time, read, estimated and
    low-passed as they stream, so memory is bounded by a chunk (estimating: by the
    estimate's window) whatever the log's length. Opening checks its columns (estimating,
    reads its first chunk too): one-line errors name the file and what is missing (the
    torque columns of a joint, the derivative columns without ``estimate``); the rows are
    checked as they come.

    ``estimated``: the derivative names estimated; after the pass, ``trimmed``: seconds left
    out at each end (the estimate's end zones) and ``samples``: the samples given."""

    def __init__(self, path: str, model: Model, *, estimate: bool = False,
                 cutoff: float | None = None, drives: Any = None, floating: bool = False,
                 chunk: int = CHUNK_ROWS):
        from hodyn_cli.api.estimation import derivative_stream
        from hodyn_cli.api.regressor import regressor_rows

        self.path, self.trimmed, self.samples, self._model = path, 0.0, 0, model
        with ExitStack() as files:  # closed again if a check fails
            self._torques = files.enter_context(_torque_reader(path, model, drives))
            self.rates = self._torques.orders - 1  # (measured torque rates: more q orders)
            capabilities.check("identify", {name for name, on in (
                ("torque_rates", self.rates > 0), ("floating_base", floating),
                ("estimate", estimate)) if on})
            need = NEED + self.rates
            hdf5 = file_format(path) == "hdf5"  # (its errors name datasets, not columns)
            rates = derivative_name("tau", self.rates)
            rates = f"dataset {rates}" if hdf5 else f"{rates}_<joint>"
            try:
                self._reader = files.enter_context(TrajectoryReader(
                    path, model, 1 if estimate else need, chunk=chunk))
            except MissingDerivatives as e:  # (missing positions: nothing to estimate them from)
                if estimate:
                    raise
                why = (f" (its torque rates {rates} need them: leave those out to fit tau "
                       "alone)" if self.rates else "")
                raise TrajectoryError(f"{e.message}{why}; {ESTIMATE_HINT}", e.source) from None
            self._base = files.enter_context(BaseMotionReader(path, need - 1)) if floating \
                else None
            if floating and not self._reader.layout.wrenches:
                wrench = list(regressor_rows(model, True)[:6])
                raise TrajectoryError(
                    f"missing {column_listing(wrench, hdf5)} (a floating "
                    "base is identified from the joint torques and the base wrench, as hodyn "
                    "compute --floating-base --base-wrench writes it, or the wrenches "
                    f"{'wrench/<link>/W' if hdf5 else 'W_<link>_*'} measured at every "
                    "contact)", path)
            root = self._reader.layout.wrenches.get(model.root_link, ())
            if floating and root and len(root) <= self.rates:
                rate = derivative_name("W", len(root))  # W_<root>_mx -> Wd_<root>_mx, ...
                missing = [rate + row[1:] for row in regressor_rows(model, True)[:6]]
                raise TrajectoryError(
                    f"missing {column_listing(missing, hdf5)} (the "
                    f"base wrench's rates, measured with the torques' {rates})", path)
            self._stream = derivative_stream(model, self._measured(), need, cutoff=cutoff,
                                             rows=chunk, lowpassed=("measured",)) \
                if estimate else None
            if self._stream is not None:
                with _naming(path):
                    self._stream.start()
            self._files = files.pop_all()
        self.estimated = [] if self._stream is None else list(self._stream.names)

    def __enter__(self) -> Log:
        return self

    def __exit__(self, *exc) -> None:
        self._files.close()

    def __iter__(self) -> Iterator[tuple[Trajectory, np.ndarray]]:
        with self._files, _naming(self.path):
            for chunk in self._measured() if self._stream is None else self._inner(self._stream):
                assert chunk.series is not None  # (the measured torques: _measured)
                self.samples += chunk.n_samples
                yield (Trajectory(chunk.joint_names, chunk.derivatives[:, :NEED + self.rates],
                                  chunk.t, base=chunk.base), chunk.series["measured"])
            for reader in (self._torques, self._base):
                if reader is not None:
                    reader.finish()

    def _measured(self) -> Iterator[Trajectory]:
        """The file's chunks with the root's motion and the torques measured at their samples
        (series ``measured``: a floating base's wrench, then the joints'), less the share of
        the external wrenches measured with them, ``J^T W``
        (:func:`~hodyn_cli.api.external_wrench_torques`: before any filter, which then
        passes both alike). A floating root's own wrench columns are the base wrench; without
        them the root is free, its base wrench 0. The angles that mimic joints follow are
        continued through +-pi where the file wraps them (the followers' poses:
        :func:`~hodyn_cli.api.robots.leaders_unwrapped`)."""
        for chunk in map(leaders_unwrapped(self._model), self._reader):
            n, t = chunk.n_samples, chunk.t
            torques = self._torques.take(n, t)
            external = {} if chunk.wrenches is None else dict(chunk.wrenches.W)
            base = None
            if self._base is not None:
                measured = external.pop(self._model.root_link, None)  # (W, Wd, ...)
                measured = np.zeros((n, self.rates + 1, 6)) if measured is None \
                    else measured[:, : self.rates + 1]
                torques = np.concatenate([measured[:, 0] if torques.ndim == 2 else measured,
                                          torques], axis=-1)
                motion = self._base.take(n, t)
                base = api.base_motion(motion.R, motion.p, Vb=motion.Vb, Vs=motion.Vs)
            chunk = replace(chunk, wrenches=Wrenches(external) if external else None, base=base)
            known = api.external_wrench_torques(self._model, chunk, self.rates)
            yield replace(chunk, wrenches=None, series={
                "measured": torques if known is None else torques - known})

    def _inner(self, stream: Any) -> Iterator[Trajectory]:
        """The estimated chunks less the first and last ``stream.end_samples`` of the record
        (known with the first chunk), where the estimate is unreliable: the last ones are held
        back until the record ends (memory: an end zone)."""
        held: list[Trajectory] = []
        skip = None
        for chunk in stream:
            if skip is None:
                skip = stream.end_samples
            chunk, skip = chunk.rows(slice(skip, None)), max(0, skip - chunk.n_samples)
            if chunk.n_samples:
                held.append(chunk)
            while len(held) > 1 and sum(c.n_samples for c in held[1:]) >= stream.end_samples:
                yield held.pop(0)
        keep = sum(c.n_samples for c in held) - stream.end_samples
        for chunk in held:
            if keep > 0:
                yield chunk.rows(slice(0, keep))
            keep -= chunk.n_samples
        self.trimmed = stream.end_seconds


@contextmanager
def _naming(path: str) -> Iterator[None]:
    """A TrajectoryError inside that names no file names ``path``."""
    try:
        yield
    except TrajectoryError as e:
        raise TrajectoryError(e.message, e.source or path) from None


def robot_text(path: str | Path, xacro_args: dict[str, str] | None = None) -> bytes:
    """The URDF text of the robot's file (a ``.xacro`` expanded with ``xacro_args``)."""
    from hodyn_cli.modeling.xacro_expand import expand

    path = Path(path)
    if path.suffix == ".xacro":
        return expand(path, xacro_args or {})[0]
    try:
        return path.read_bytes()
    except OSError as e:
        raise ModelError(f"cannot read URDF: {e.strerror or e}", str(path)) from None


def _torque_reader(path: str, model: Model, drives: Any = None) -> _Torques:
    """The torques of a log (n, m) in lockstep with its chunks: its ``tau_<joint>`` columns
    (:class:`~hodyn_cli.io.torques.TorqueReader`), or where it has none, the
    ``effort_<joint>`` columns ``hodyn import`` writes (a JointState's efforts), or the motor
    currents ``current_<joint>`` (``hodyn compute --drives``' columns) as the motor torques
    referred to the joints, ``r eta k_t i`` (the ``drives``' constants)."""
    from hodyn_cli.io.columns import TAU_COLUMN
    from hodyn_cli.io.tables import open_table

    table = open_table(path)
    names = list(table.names)
    kind = next((k for k in MEASURED if any(n.startswith(k + "_") for n in names)), None)
    if any(TAU_COLUMN.match(n) for n in names) or kind is None:
        table.close()
        reader = TorqueReader(path, model, most=RATES + 1)
        return _Torques(reader, orders=reader.orders)
    columns = [f"{kind}_{j}" for j in model.coordinate_names]
    missing = [c for c in columns if c not in names]
    if missing:
        table.close()
        if table.n_rows is not None:  # HDF5: in the words of its datasets and attributes
            joints = listing([c.removeprefix(kind + "_") for c in missing])
            raise TrajectoryError(f"dataset '{kind}' has no column of joint(s) {joints} (its "
                                  f"columns: root attribute '{MEASURED_JOINTS[kind]}'; the "
                                  "measured torque of every independent joint: dataset 'tau', "
                                  f"or '{kind}' as {MEASURED[kind]} writes)", path)
        raise TrajectoryError(f"missing columns {listing(missing)} (the measured torque of "
                              f"every independent joint: tau_<joint>, or {kind}_<joint> as "
                              f"{MEASURED[kind]} writes)", path)
    scale = 1.0 if kind == "effort" else _current_scale(path, model, drives, table)
    return _Torques(Lockstep(path, table, (["t"] if "t" in names else []) + columns), scale)


@dataclass(eq=False, repr=False)
class _Torques:
    """Measured torques read in lockstep (``reader``), times ``scale`` (m,) (motor currents'
    ``r eta k_t``); ``orders``: tau and its rates (1: tau alone)."""

    reader: Lockstep
    scale: Any = 1.0
    orders: int = 1

    def __enter__(self) -> _Torques:
        return self

    def __exit__(self, *exc) -> None:
        self.reader.close()

    def take(self, n: int, t: np.ndarray | None) -> np.ndarray:
        """(n, m), with rates (n, orders, m)."""
        shape = (n, -1) if self.orders == 1 else (n, self.orders, -1)
        return self.reader.take(n, t).reshape(shape) * self.scale

    def finish(self) -> None:
        self.reader.finish()


def _current_scale(path: str, model: Model, drives: Any, table: Any) -> np.ndarray:
    """(m,) ``r eta k_t`` of every independent joint: what turns its motor current into the
    motor torque referred to the joint (docs/drives.md). One line where a joint's drive has
    no torque constant, or there are no drives."""
    joints = np.asarray(model.coordinates)
    if drives is None:
        table.close()
        raise TrajectoryError("motor currents (current_<joint>) need the drives' torque "
                              "constants and gear ratios: --drives FILE", path)
    k_t = np.where(drives.driven, drives.torque_constant, np.nan)[joints]
    if np.isnan(k_t).any():
        table.close()
        joint = model.coordinate_names[int(np.argmax(np.isnan(k_t)))]
        raise TrajectoryError(f"column 'current_{joint}': its drive has no 'torque_constant' "
                              f"in {drives.source or 'the drives file'}", path)
    return (drives.gear_ratio * drives.gear_efficiency)[joints] * k_t


def body_links(model: Model, floating: bool = False) -> list[str]:
    """The links whose parameters are identified, in the parameters' order: the one each
    moving body's joint moves, after a floating root."""
    return ([model.root_link] if floating else []) + list(model.link_names)


def robot_with(model: Model, text: bytes, parameters: dict[str, np.ndarray | None],
               source: str) -> bytes:
    """The robot's file ``text`` (URDF or MJCF) with the inertial elements of
    ``parameters``: link (MJCF body) name -> 10 parameters in its model body's frame, or None
    for a welded link (:mod:`~hodyn_cli.modeling.urdf_inertials`,
    :mod:`~hodyn_cli.modeling.mjcf_inertials`)."""
    from hodyn_cli.modeling.mjcf_root import is_mjcf

    if is_mjcf(text):
        from hodyn_cli.modeling.mjcf_inertials import with_mjcf_inertials

        return with_mjcf_inertials(text, parameters,
                                   {name: frame.T for name, frame in model.links.items()}, source)
    from hodyn_cli.modeling.urdf_inertials import with_inertials

    return with_inertials(text, parameters, source)


def drives_table(table: dict, result: api.Identification) -> dict:
    """The drives file's ``table`` with the identified rotor inertias and friction
    parameters (``rotor_inertia_<joint>``, ``viscous_<joint>``, ...) in place of its values."""
    out = {k: (dict(v) if isinstance(v, dict) else v) for k, v in table.items()}
    joints = {name: dict(entry) for name, entry in out.get("joints", {}).items()}
    nb10 = 10 * result.bodies
    for name, value in zip(result.names[nb10:], result.parameters[nb10:], strict=True):
        for key in ("rotor_inertia", "viscous", "coulomb", "offset"):
            joint = name.removeprefix(key + "_")
            if joint != name and joint in joints:
                joints[joint][key] = float(value)
                if key == "rotor_inertia" and value <= 0:  # a file's 0 is read as a mistake
                    del joints[joint][key]
                break
    out["joints"] = joints
    return out


def default_drives_output(output: str) -> str:
    """Where the identified drives go without ``--drives-output``: next to the URDF,
    ``<name>_drives.toml``."""
    path = Path(output)
    return str(path.with_name(path.stem + "_drives.toml"))


def _per_joint(names: tuple[str, ...], values: np.ndarray | None) -> dict | None:
    return None if values is None else {j: float(v) for j, v in zip(names, values, strict=True)}


def report_data(result: api.Identification, *, robot: str, logs: list[Log],
                holdout: list[Log], prior_weight: float, model: Model,
                floating: bool = False) -> dict:
    """The report (JSON-ready): base parameters with standard errors, condition number,
    residual and noise per joint, held-out RMS error per joint, the full parameters (URDF,
    least squares alone, identified) and what the data cannot see."""
    identified_base = result.base.base_map @ result.parameters
    unconstrained = result.consistent_bodies(result.unconstrained)
    return {
        "robot": robot, "logs": [log.path for log in logs],
        "holdout": [log.path for log in holdout], "samples": result.samples,
        "estimated_derivatives": sorted({n for log in logs + holdout for n in log.estimated}),
        "prior_weight": prior_weight,
        "condition_number": result.condition,
        "noise": _per_joint(result.joint_names, result.noise),
        "residual_rms": _per_joint(result.joint_names, result.residual_rms),
        "holdout_rms": _per_joint(result.joint_names, result.holdout_rms),
        "holdout_rms_least_squares": _per_joint(result.joint_names, result.holdout_rms_base),
        "consistent_solver_converged": result.converged,
        "base_parameters": [
            {"name": n, "estimate": float(b), "standard_error": float(s),
             "identified": float(i)}
            for n, b, s, i in zip(result.base.names, result.base_estimate,
                                  result.standard_errors, identified_base, strict=True)],
        "parameters": [
            {"name": n, "urdf": float(p), "least_squares": float(u), "identified": float(v)}
            for n, p, u, v in zip(result.names, result.prior, result.unconstrained,
                                  result.parameters, strict=True)],
        "unseen": result.unseen,
        "poorly_excited": result.poorly_excited,
        "least_squares_inconsistent_links": [body_links(model, floating)[b] for b in
                                             np.flatnonzero(~unconstrained)],
    }


def _html(data: dict) -> str:
    from hodyn_cli.pipeline.report import html_page

    esc = html.escape

    def table(head: list[str], rows: list[list[Any]]) -> str:
        def cell(v: Any) -> str:
            return f"{v:.6g}" if isinstance(v, float) else esc(str(v))
        return ("<table><tr>" + "".join(f"<th>{esc(h)}</th>" for h in head) + "</tr>"
                + "".join("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in row) + "</tr>"
                          for row in rows) + "</table>")

    joints = list(data["noise"])
    per_joint = [[j, data["noise"][j], data["residual_rms"][j]]
                 + ([data["holdout_rms"][j], data["holdout_rms_least_squares"][j]]
                    if data["holdout_rms"] else []) for j in joints]
    body = (f"<p>{data['samples']} samples from {esc(', '.join(data['logs']))}; condition "
            f"number {data['condition_number']:.4g}; prior weight {data['prior_weight']:g}.</p>"
            "<h2>Per joint</h2>"
            + table(["joint", "noise sigma", "residual RMS"]
                    + (["held-out RMS (identified)", "held-out RMS (least squares)"]
                       if data["holdout_rms"] else []), per_joint)
            + "<h2>Base parameters</h2>"
            + table(["base parameter", "estimate", "standard error", "identified"],
                    [[p["name"], p["estimate"], p["standard_error"], p["identified"]]
                     for p in data["base_parameters"]])
            + "<h2>Parameters</h2>"
            + table(["parameter", "URDF", "least squares", "identified"],
                    [[p["name"], p["urdf"], p["least_squares"], p["identified"]]
                     for p in data["parameters"]])
            + f"<p>Not seen by the data (kept at the prior): {esc(', '.join(data['unseen']) or 'none')}."
            f"</p><p>Poorly excited (standard error above 10 %): "
            f"{esc(', '.join(data['poorly_excited']) or 'none')}.</p>")
    return html_page(f"hodyn identify: {data['robot']}", "", body, [])


def identify_files(model: Model, robot: str, logs: list[str], output: str, *,
                   floating: bool = False,
                   robot_text: bytes, drives: Any = None, drives_file: str | None = None,
                   drives_output: str | None = None, friction: bool = False,
                   armature: bool = False, drive_model: str = "full", gravity: Any = GRAVITY,
                   prior_weight: float = 1.0, holdout: list[str] | None = None,
                   estimate: bool = False, cutoff: float | None = None,
                   report: str | None = None, notify: Notify = None) -> api.Identification:
    """Identify ``model`` (its URDF or MJCF text ``robot_text``, from file ``robot``) from
    the ``logs``; write the identified robot (URDF or MJCF) to ``output``, with ``friction``/``armature`` the
    drives file ``drives_file`` with the identified values to ``drives_output``, and the
    ``report`` (.json or .html)."""
    from hodyn_cli.pipeline.report import report_format

    fmt = report_format(report) if report else None

    def write_robot(text: bytes, parameters: dict) -> bytes:
        return robot_with(model, text, parameters, robot)

    # what the robot's file refuses (an MJCF compiler setting, a body with several joints),
    # before the work: a unit body written for each
    unit = np.array([1.0, 0, 0, 0, 1, 0, 1, 0, 0, 1])
    write_robot(robot_text, dict.fromkeys(body_links(model, floating), unit))
    options = {"estimate": estimate, "cutoff": cutoff, "drives": drives, "floating": floating}
    with ExitStack() as files:  # every log opened (its columns checked) before the work
        read = [files.enter_context(Log(p, model, **options)) for p in logs]
        held = [files.enter_context(Log(p, model, **options)) for p in holdout or []]
        try:
            result = api.identify(model, itertools.chain.from_iterable(read),
                                  holdout=itertools.chain.from_iterable(held),
                                  drives=drives, friction=friction, armature=armature,
                                  drive_model=drive_model, prior_weight=prior_weight,
                                  gravity=gravity)
        except TrajectoryError as e:
            raise TrajectoryError(e.message, e.source or listing(logs)) from None
    for log in read + held:
        if log.estimated:
            tell(notify, [Diagnostic("warning", f"{log.path}: estimated {', '.join(log.estimated)}"
                                     + (f" from the data low-passed at {cutoff:g} Hz, the "
                                        "torques low-passed alike" if cutoff else "")
                                     + f"; {log.trimmed:.3g} s left out at each end")])
    if not result.converged:
        tell(notify, [Diagnostic("warning", "the consistent estimate's solver stopped before "
                                            "converging: the identified parameters are its last")])
    links = body_links(model, floating)
    welded = {name: None for name, frame in model.links.items() if name not in links
              and (frame.body >= 0 or floating)}  # (lumped into their body: its link has all)
    bodies = dict(zip(links, result.body_parameters, strict=True))
    text = write_robot(robot_text, {**welded, **bodies})
    outputs = {output: text.decode()}
    if (friction or armature) and drives_file is not None:
        from hodyn_cli.modeling.joint_files import joint_sections

        table = drives_table({"joints": joint_sections(drives_file, "drives")}, result)
        outputs[drives_output or default_drives_output(output)] = to_toml(
            table, f"# {drives_file} with the rotor inertias and friction identified by hodyn "
                   f"identify from {', '.join(logs)} (its comments are not kept)")
    if report and fmt is not None:
        data = report_data(result, robot=robot, logs=read, holdout=held,
                           prior_weight=prior_weight, model=model, floating=floating)
        outputs[report] = json.dumps(data, indent=1) + "\n" if fmt == "json" else _html(data)
    for path in outputs:  # each written atomically; none at all if one cannot be
        if not Path(path).parent.is_dir():
            raise HodynError(f"directory '{Path(path).parent}' does not exist", path)
        if Path(path).is_dir():
            raise HodynError("is a directory, not a file to write", path)
    for path, content in outputs.items():
        write_text(path, content)
    return result
