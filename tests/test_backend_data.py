"""The backends' Data (issue 36, item 3): made once per request, for one model and one
backend; a Data given with another model is not used for it, and a job that has made its Data
still pickles (to a Dask worker) without it."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np

from conftest import URDF, random_cosine
from hodyn_cli import api
from hodyn_cli.algorithms import backends
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.modeling.drives import read_drives
from hodyn_cli.modeling.urdf import load_model
from hodyn_cli.pipeline.jobs import ElasticJob, TorqueJob
from hodyn_cli.pipeline.laws import LawsJob


def test_a_data_given_with_another_model_is_not_used_for_it():
    """Two models of the same shape (the inertias doubled: a replaced model): a Data made for
    one, given with the other, gives the other's numbers, not the first's."""
    model = load_model(URDF / "iiwa14.urdf")
    heavy = dataclasses.replace(model, inertias=model.inertias * 2)
    traj = random_cosine(model, np.linspace(0, 1, 12), orders=4)
    data = api.backend_data(model)
    want = api.inverse_dynamics(heavy, traj, order=1).tau
    assert np.array_equal(api.inverse_dynamics(heavy, traj, order=1, data=data).tau, want)
    assert np.array_equal(api.matrices(heavy, traj, data=data).M,
                          api.matrices(heavy, traj).M)
    # and the model's own Data is still used for it (made once, not per call)
    assert backends.prepare(model, data)[1] is data


def test_what_a_data_keeps_is_for_its_own_model():
    """``data.derived`` keeps what was found for the Data's model (the drives' requirements):
    asked about another model (a replaced one, same joints), it finds it for that one."""
    model = load_model(URDF / "iiwa14.urdf")
    heavy = dataclasses.replace(model, inertias=model.inertias * 2)
    data = api.backend_data(model)

    def mass(m, body):
        return float(m.inertias[body, 3, 3])

    assert data.derived(mass, model, 2) == mass(model, 2)
    assert data.derived(mass, heavy, 2) == mass(heavy, 2) == 2 * mass(model, 2)


def test_a_job_that_has_made_its_data_still_pickles_and_computes_the_same():
    """A job runs its first chunks here (its Data made), then goes to a Dask worker or a
    process pool: it pickles (without this process's Data) and computes the same bytes."""
    model = load_model(URDF / "iiwa14.urdf")
    traj = random_cosine(model, np.linspace(0, 1, 30), orders=4)
    chunk = Trajectory(traj.joint_names, traj.derivatives)
    job = TorqueJob(model, order=2)
    here = job(chunk)
    assert "data" in vars(job)
    there = pickle.loads(pickle.dumps(job))
    assert "data" not in vars(there)
    out = there(chunk)
    assert all(np.array_equal(out[k], here[k]) for k in here)
    # the jobs whose derivative needs make the Data before any chunk (``need``)
    drives = read_drives(URDF / "iiwa14_drives.toml", model)
    for job in (ElasticJob(model, drives, order=0), LawsJob(model, order=1, drives=drives)):
        assert job.need > 0
        assert pickle.loads(pickle.dumps(job)).need == job.need


def test_check_and_retime_make_the_data_once_per_request_not_per_chunk(monkeypatch):
    """The scaling laws of a stream (``hodyn check``, ``retime``: a LawsJob) use the job's
    Data for every chunk: rigid (no drives) too, not a Data per chunk and per pass."""
    from hodyn_cli.algorithms.backends.numpy.model_data import ModelData

    model = load_model(URDF / "iiwa14.urdf")
    traj = random_cosine(model, np.linspace(0, 1, 40), orders=5)
    made = []
    init = ModelData.__init__
    monkeypatch.setattr(ModelData, "__init__", lambda self, m: made.append(m) or init(self, m))
    job = LawsJob(model, order=2)
    for rows in (slice(0, 20), slice(20, 40)):
        job(Trajectory(traj.joint_names, traj.derivatives[rows]))
    assert made == [model]


def test_a_simulation_makes_the_data_once_not_per_step(monkeypatch):
    """``simulate`` (``hodyn validate --simulate``) evaluates the forward dynamics thousands
    of times: one Data for the whole integration, not one per right-hand side (that made it
    2.3 times slower on iiwa14)."""
    from hodyn_cli.algorithms.backends.numpy.model_data import ModelData

    model = load_model(URDF / "planar_2r.urdf")
    t = np.linspace(0, 0.2, 5)
    traj = random_cosine(model, t, orders=3)
    tau = api.inverse_dynamics(model, traj, order=0).tau
    made = []
    init = ModelData.__init__
    monkeypatch.setattr(ModelData, "__init__", lambda self, m: made.append(m) or init(self, m))
    api.simulate(model, t, traj.derivatives[0, 0], traj.derivatives[0, 1], tau=tau)
    assert made == [model]


def test_docs_python_says_which_operations_the_compiled_kernel_leaves_to_numpy():
    """docs/python.md names what ``backend_runs()`` gives for the compiled kernel (it said
    the kernel runs them all: three operations are numpy's)."""
    import pytest

    from conftest import ROOT

    try:
        with backends.use("compiled"):
            runs = api.backend_runs()
    except backends.Unavailable:
        pytest.skip("no compiled kernel here")
    left = {op for op, who in runs.items() if who == "numpy"}
    assert left == {"joint_wrenches", "spatial_inverse_dynamics", "spatial_kinematics"}
    text = " ".join((ROOT / "docs" / "python.md").read_text().split())
    assert ("the compiled kernel all but the joint wrenches, the spatial method and the "
            "spatial kinematics, which run as numpy's") in text


def test_a_closed_robots_loops_make_their_data_once_not_per_call(monkeypatch):
    """The loops' kinematics (Newton, the passive joints' rates, P J's jets) run several times
    per chunk: one Data for them, not one per call (265 for a 5e4-sample crank motion of the
    four-bar, 10 % of its stream), and a closed robot still pickles."""
    from hodyn_cli.algorithms.backends.numpy.model_data import ModelData

    closed = api.close_loops(api.load_robot(URDF / "fourbar.urdf"), URDF / "fourbar_loops.toml")
    full = load_model(URDF / "fourbar.urdf")
    traj = random_cosine(full, np.linspace(0, 1, 40), orders=4)
    crank = Trajectory(("crank",), traj.derivatives[:, :, :1])
    job = TorqueJob(closed, order=2)
    job(Trajectory(crank.joint_names, crank.derivatives[:5]))   # (the assembly, the first Data)
    made = []
    init = ModelData.__init__
    monkeypatch.setattr(ModelData, "__init__", lambda self, m: made.append(m) or init(self, m))
    for rows in (slice(5, 20), slice(20, 40)):
        job(Trajectory(crank.joint_names, crank.derivatives[rows]))
    assert made == []
    pickle.loads(pickle.dumps(closed))


def test_a_used_model_pickles_as_a_fresh_one_and_computes_the_same():
    """A floating base's first computation builds the robot under its free root joint and
    keeps it with the model (a whole model: the pickle was 1.9x a fresh one's); a model goes
    to a Dask worker (pickled) without it, the same bytes as before its first
    use, and computes the same numbers there (where it builds it again)."""
    from hodyn_cli.core.trajectory import BaseMotion

    model = load_model(URDF / "quadruped.urdf")
    fresh = pickle.dumps(model)
    N = 6
    traj = random_cosine(model, np.linspace(0, 1, N), orders=4)
    rng = np.random.default_rng(5)
    traj = dataclasses.replace(traj, base=BaseMotion(
        np.broadcast_to(np.eye(3), (N, 3, 3)).copy(), rng.normal(size=(N, 3)),
        rng.normal(size=(N, 3, 6))))
    feet = {leg: {"link": f"{leg}_foot", "type": "point", "friction": 0.8}
            for leg in ("FL", "FR", "HL", "HR")}
    here = api.contact_dynamics(model, feet, traj, order=1, base_wrench=True)
    assert "free_rooted" in vars(model)   # what the first use keeps (what the pickle leaves)
    assert pickle.dumps(model) == fresh
    there = pickle.loads(pickle.dumps(model))
    out = api.contact_dynamics(there, feet, traj, order=1, base_wrench=True)
    assert set(out) == set(here)
    assert all(np.array_equal(out[k], here[k]) for k in here)
