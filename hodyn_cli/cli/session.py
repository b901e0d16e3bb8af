"""The preamble every command runs, once: parse the shared options, load the robot, show its
diagnostics, hold the locked joints; then stream files with a progress bar and print what the
pipeline has to say."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hodyn_cli.cli import render
from hodyn_cli.errors import HodynError, ModelError

__all__ = ["Session", "parse_gravity"]


def parse_gravity(text: str) -> tuple[float, float, float]:
    """``"gx,gy,gz"`` -> floats."""
    try:
        g = tuple(float(v) for v in text.split(","))
    except ValueError:
        g = ()
    if len(g) != 3:
        raise HodynError(f"--gravity: expected gx,gy,gz (e.g. 0,0,-9.81), got '{text}'")
    from hodyn_cli import api

    for value in g:
        api.check_number("--gravity", value)
    return g


def xacro_mappings(items: list[str] | None) -> dict[str, str]:
    """``["name:=value", ...]`` -> ``{name: value}``."""
    out = {}
    for item in items or []:
        name, sep, value = item.partition(":=")
        if not sep or not name.strip():
            raise HodynError(f"--xacro-arg: expected name:=value, got '{item}'")
        out[name.strip()] = value
    return out


@dataclass(eq=False, repr=False)
class Session:
    """The shared options of one command run (those it does not take keep their defaults)."""

    gravity: str | None = None  # None: the model's own (MJCF), else the library's (api.GRAVITY)
    wrench: str | None = None
    estimate: bool = False
    cutoff: float | None = None
    jobs: int | None = None
    quiet: bool = False
    lock: list[str] | None = None
    lock_missing: bool = False
    strict: bool = False
    repair_inertia: bool = False
    ignore_broken_mimic: bool = False
    xacro_arg: list[str] | None = None
    debug: bool = False
    floating_base: bool = False
    base_motion: str | None = None
    backend: str | None = None
    contacts: Path | None = None
    loops: Path | None = None
    command: str = ""  # the command that runs (set by cli.options.command)
    options: tuple[str, ...] = ()  # the shared options the command takes (its parameters')
    robot_file: str | None = None  # the robot's file, once loaded (named by its refusals)
    model_gravity: tuple[float, float, float] | None = None  # the loaded model's own gravity

    @property
    def g(self) -> tuple[float, float, float]:
        """``--gravity``; without it the robot's own (an MJCF ``<option gravity>``, read by
        :meth:`model`), else hodyn's default."""
        if self.gravity is None:
            from hodyn_cli import api

            return self.model_gravity or api.GRAVITY
        return parse_gravity(self.gravity)

    def capable(self, command: str, model, **on) -> None:
        """The one-line refusal of :mod:`hodyn_cli.capabilities` (the one place a
        combination is refused) unless ``command`` takes this run's features together: the
        ``on`` ones (``drives=True``, ...), those of the shared options, the robot's."""
        from hodyn_cli import capabilities

        features = {name for name, given in on.items() if given}
        features |= {name for name, given in (
            ("floating_base", self.floating_base), ("base_motion", self.base_motion),
            ("wrench", self.wrench), ("estimate", self.estimate),
            ("cutoff", self.cutoff is not None), ("contacts", self.contacts),
            ("loops", self.loops or (model is not None and model.loop_tables is not None)),
            ("gpu", self.backend == "gpu"),
            ("mimic", model is not None and bool((model.mimic[:, 0] >= 0).any())),
            ("no_joints", model is not None and model.n == 0),
            ("joint_models", model is not None and model.has_joint_models)) if given}
        capabilities.check(command, features, self.robot_file)

    def read_contacts(self, model) -> tuple:
        """The contacts of ``--contacts`` (docs/contacts.md), () without it."""
        if self.contacts is None:
            return ()
        from hodyn_cli import api

        return api.read_contacts(model, self.contacts)

    def model(self, robot: Path, traj: str | None = None, *, floating_matters: bool = True):
        """The robot, loaded, its diagnostics shown, ``--lock``/``--lock-missing`` applied
        (``traj``: the one trajectory whose columns ``--lock-missing`` reads).
        ``floating_matters``: whether this run's result depends on ``--floating-base`` (a
        notice proposing it is said only where it does)."""
        from hodyn_cli import api

        self.kernel_notice()
        model = api.load_robot(robot, strict=self.strict,
                               xacro_args=xacro_mappings(self.xacro_arg),
                               repair_inertia=self.repair_inertia,
                               ignore_broken_mimic=self.ignore_broken_mimic)
        self.robot_file = str(robot)
        self.model_gravity = model.gravity
        if model.n == 0 and self.command:  # a single rigid body: what it cannot do refused in
            self.capable(self.command, model)  # one line, before any other line or file read
        # (a notice proposing --floating-base: only to a command that takes it, run without)
        open_options = ["--floating-base"] if "floating_base" in self.options and not \
            self.floating_base and floating_matters else []
        render.diagnostics(model, open_options=open_options, quiet=self.quiet)
        if self.floating_base:  # before any file is read (forward's orders); the joint's
            from hodyn_cli.pipeline.files import check_poses_apart  # name is the robot's

            check_poses_apart(model, str(robot))
        return self._locked(model, traj)

    def closed(self, model):
        """The model with its loops closed (docs/loops.md): those of ``--loops`` over the
        model's own (an MJCF's ``<equality connect|weld>``), said in a notice (after
        :meth:`capable`: a refused combination is refused before the file is read)."""
        if self.loops is None and model.loop_tables is None:
            return model
        from hodyn_cli import api

        closed = api.close_loops(model, self.loops, source=self.robot_file)
        if not self.quiet:
            render.notice(f"{self.loops or self.robot_file}: {api.loop_summary(closed)}")
        return closed

    def kernel_notice(self) -> None:
        """Choose the backend (``--backend``); say so when the numpy implementation runs
        because the compiled kernel cannot (the same numbers, several times slower): not with
        ``--quiet``, ``HODYN_NO_KERNEL`` or a backend asked for."""
        from hodyn_cli import api

        if self.backend is not None:
            api.use_backend(self.backend)
        why = None if self.quiet else api.backend_info()["fallback"]
        if why:
            render.notice(f"the compiled kernel does not run here ({why}): the numpy "
                          "implementation does, with the same numbers, several times slower")

    def _locked(self, model, traj: str | None):
        from hodyn_cli import api

        values = {}
        for item in self.lock or []:
            name, sep, value = item.partition("=")
            try:
                values[name.strip()] = float(value)
            except ValueError:
                sep = ""
            if not sep or not name.strip():
                raise HodynError(f"--lock: expected JOINT=VALUE, got '{item}'")
        if self.lock_missing:
            if traj is None or traj == "-":
                raise HodynError("--lock-missing needs one trajectory file (it reads its columns)")
            from hodyn_cli.pipeline.files import column_names

            present = set(column_names(traj))
            # only independent joints can be missing: a <mimic> follower (or a loop's passive
            # joint) has no column by design and moves with its leader's
            independent = (model.joint_names[i] for i in model.coordinates)
            held = {joint: api.lock_value(model, joint) for joint in independent
                    if f"q_{joint}" not in present and joint not in values}
            if held:
                render.notice(f"{traj}: holding joint(s) without q columns: " + ", ".join(
                    f"{j}={v:g}" for j, v in held.items()))
            values |= held
        return api.lock_joints(model, values)

    def notify(self, note) -> None:
        """Print a pipeline note (notices not with ``--quiet``; warnings always)."""
        if note.level == "warning":
            render.warning(note.message)
        elif not self.quiet:
            render.notice(note.message)

    def run_file(self, job, traj: str, output: str, attrs: dict, **options) -> int:
        """Stream ``traj`` through ``job`` into ``output`` with the session's input options,
        a progress bar and its notes printed; returns the number of samples."""
        from hodyn_cli.pipeline import stream
        from hodyn_cli.pipeline.files import run_file

        options = {"wrench": self.wrench, "estimate": self.estimate, "cutoff": self.cutoff,
                   "strict": self.strict, "floating": self.floating_base,
                   "base_motion": self.base_motion, **options}
        with render.progress(None, "samples", self.quiet) as update:
            try:
                return run_file(job, traj, output, attrs, jobs=self.jobs or stream.default_jobs(),
                                notify=self.notify, progress=update, **options)
            except ModelError as e:  # found by the computation (a singular M): the robot's
                if e.source is not None or self.robot_file is None:
                    raise
                raise ModelError(e.message, self.robot_file) from e

    def provenance(self, robot: Path, traj: str, model, **settings) -> dict:
        """HDF5 attributes that say where a result came from."""
        from hodyn_cli import __version__

        return {"hodyn_version": __version__, **settings, "urdf": str(robot),
                "urdf_sha256": model.source_sha256, "trajectory": traj,
                "joint_names": list(model.coordinate_names)}


def read_rigid_drives(s: Session, path: Path | None, model, kind, rigid: bool):
    """The drives file of ``--drives`` for the rigid-drive model (None without one), checked
    against the options that go with it: ``--model`` (``kind``) and ``--rigid-drives``
    (``rigid``: series-elastic drives taken as rigid; else they are an error)."""
    from hodyn_cli import api

    if path is None:
        for flag, given in (("--model", kind is not None), ("--rigid-drives", rigid)):
            if given:
                raise HodynError(f"{flag} goes with --drives FILE")
        return None
    drives = api.read_drives(model, path)
    if rigid:
        return drives.made_rigid()
    if drives.elastic.any():
        name = model.joint_names[int(drives.elastic.argmax())]
        raise HodynError(f"joint '{name}': a series-elastic drive ('stiffness'): hodyn elastic "
                         "computes it, or --rigid-drives takes it as rigid", str(path))
    return drives
