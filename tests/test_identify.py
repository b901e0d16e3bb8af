"""hodyn identify and generate --kind excitation against a ground truth hodyn does not make:
an iiwa whose inertial parameters were perturbed (physically valid: mass scaled, COM moved,
second moment about the COM congruence-transformed), its torques from Pinocchio's rnea, 1 %
Gaussian noise per joint (fixed seeds). The base parameters lie within their standard
errors (and the statistic that says so fails when the noise estimate is wrong), the
held-out prediction error is the noise, the written URDF is physically valid (hodyn loads
it strictly, Pinocchio's inertias have positive mass and principal moments that satisfy
the triangle inequalities) and hodyn compute with it predicts the held-out torques as the
report says; on a short log least squares alone gives impossible bodies, the constrained
estimate does not."""

from __future__ import annotations

import json

import numpy as np
import pinocchio as pin
import pytest
from typer.testing import CliRunner

from conftest import ROOT, URDF
from hodyn_cli import api
from hodyn_cli.algorithms.identification import consistent as C
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.io import open_sink, read_trajectory, trajectory_datasets
from hodyn_cli.modeling.urdf_inertials import inertial_of

IIWA = URDF / "iiwa14.urdf"
NOISE = 0.01


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def perturbed(path, seed: int = 1, model=None):
    """Pinocchio's ``model`` of the URDF (default: fixed root) with every body's inertia
    perturbed, physically valid."""
    model = pin.buildModelFromUrdf(str(path)) if model is None else model
    rng = np.random.default_rng(seed)
    for i in range(1, model.njoints):
        inertia = model.inertias[i]
        S = 0.5 * np.trace(inertia.inertia) * np.eye(3) - inertia.inertia  # >= 0
        A = np.eye(3) + 0.2 * rng.normal(size=(3, 3))
        S = A @ S @ A.T
        model.inertias[i] = pin.Inertia(inertia.mass * rng.uniform(0.8, 1.2),
                                        inertia.lever + 0.02 * rng.normal(size=3),
                                        np.trace(S) * np.eye(3) - S)
    return model


def rnea(model, names, motion: Trajectory) -> np.ndarray:
    data = model.createData()
    idx = [model.joints[model.getJointId(n)].idx_q for n in names]
    out = np.empty((motion.n_samples, len(names)))
    for s in range(motion.n_samples):
        q, v, a = (np.zeros(model.nq) for _ in range(3))
        q[idx], v[idx], a[idx] = motion.q[s], motion.qd[s], motion.qdd[s]
        out[s] = pin.rnea(model, data, q, v, a)[idx]
    return out


def measured(truth, robot, motion, seed, sigma=None):
    """(torques with noise, the noise's standard deviation per joint: ``sigma``, or 1 % of
    each joint's peak torque)."""
    tau = rnea(truth, robot.joint_names, motion)
    sigma = NOISE * np.abs(tau).max(axis=0) if sigma is None else sigma
    return tau + np.random.default_rng(seed).normal(size=tau.shape) * sigma, sigma


def fourier(robot, seed, samples, duration=10.0):
    design = api.design_motion(robot, "fourier", seed=seed, duration=duration,
                               rate=samples / duration, derivatives=2)
    return next(design.chunks)


def write_log(path, robot, motion, tau, derivatives=3):
    data, columns = trajectory_datasets(Trajectory(motion.joint_names,
                                                   motion.derivatives[:, :derivatives], motion.t))
    columns = {**columns, "tau": [f"tau_{j}" for j in robot.joint_names]}
    with open_sink(str(path), columns, {"joint_names": list(robot.joint_names)}) as sink:
        sink.write(data | {"tau": tau})


def truth_parameters(truth, robot) -> np.ndarray:
    return np.concatenate([truth.inertias[truth.getJointId(n)].toDynamicParameters()
                           for n in robot.joint_names])


def pinocchio_valid(inertia) -> bool:
    """Positive mass, principal moments about the COM that a body can have (Pinocchio's
    Inertia::isValid, which its Python bindings do not expose)."""
    lam = np.linalg.eigvalsh(inertia.inertia)
    tol = 1e-12 * lam.sum()
    return inertia.mass > 0 and lam[0] >= -tol and lam[0] + lam[1] >= lam[2] - tol


@pytest.fixture(scope="module")
def iiwa():
    robot = api.load_robot(IIWA)
    truth = perturbed(IIWA)
    fit, hold = fourier(robot, 3, 1000), fourier(robot, 4, 500, 5.0)
    tau, sigma = measured(truth, robot, fit, 10)
    tau_hold = measured(truth, robot, hold, 11, sigma)[0]
    return robot, truth, fit, tau, hold, tau_hold, sigma


def errors(result, truth):
    """(z = (estimate - truth) / standard error per base parameter, the Mahalanobis
    chi^2 = e^T Cov^-1 e: chi^2-distributed with r degrees of freedom when the covariance is
    right)."""
    e = result.base_estimate - result.base.base_map @ truth
    return e / result.standard_errors, float(e @ np.linalg.solve(result.covariance, e))


def test_base_parameters_within_their_standard_errors(iiwa):
    from scipy.stats import chi2

    robot, truth, fit, tau, hold, tau_hold, sigma = iiwa
    result = api.identify(robot, [(fit, tau)], holdout=[(hold, tau_hold)])
    assert len(result.base_estimate) == 43 and result.condition < 30
    assert np.allclose(result.noise / sigma, 1, atol=0.1)
    assert np.all(np.abs(result.holdout_rms / sigma - 1) < 0.15), result.holdout_rms / sigma
    assert result.converged and result.consistent_bodies(result.parameters).all()
    # four noise draws: ~95 % of the base parameters within 2 standard errors, and chi^2
    # where its distribution puts it; the same statistic fails with the noise estimate
    # three times too large or too small
    pi = truth_parameters(truth, robot)
    exact = rnea(truth, robot.joint_names, fit)
    draws = [exact + np.random.default_rng(seed).normal(size=exact.shape) * sigma
             for seed in range(20, 24)]
    z, total = [], 0.0
    least_squares = {"constrained": False, "base": result.base}
    for measured_tau in draws:
        zi, c = errors(api.identify(robot, [(fit, measured_tau)], **least_squares), pi)
        z.append(zi)
        total += c
    dof = 4 * 43
    inside = chi2.ppf(0.001, dof) < total < chi2.ppf(0.999, dof)
    assert np.mean(np.abs(np.concatenate(z)) < 2) >= 0.88 and inside, (z, total)
    for wrong in (3.0, 1 / 3):
        total = sum(errors(api.identify(robot, [(fit, m)], noise=wrong * sigma,
                                        **least_squares), pi)[1] for m in draws)
        assert not chi2.ppf(0.001, dof) < total < chi2.ppf(0.999, dof), (wrong, total)


def test_short_log_least_squares_impossible_constrained_valid(iiwa, tmp_path):
    robot, truth, fit, tau, *_ = iiwa
    short = Trajectory(fit.joint_names, fit.derivatives[:60:2], fit.t[:60:2])
    result = api.identify(robot, [(short, tau[:60:2])])
    plain = result.unconstrained[:70].reshape(7, 10)
    assert not C.consistent(plain).all()  # least squares alone: impossible bodies
    assert not all(pinocchio_valid(pin.Inertia.FromDynamicParameters(p)) for p in plain)
    assert C.consistent(result.body_parameters).all()
    assert all(pinocchio_valid(pin.Inertia.FromDynamicParameters(p))
               for p in result.body_parameters)
    # the constrained estimate fits the data about as well as least squares does
    Y = api.dynamic_regressor(robot, short, base=result.base).Y_base
    rss = [((Y @ (result.base.base_map @ p) - tau[:60:2]) ** 2).sum()
           for p in (result.parameters, result.unconstrained)]
    assert rss[0] < 2 * rss[1]
    # the written robot: hodyn's strict inertia checks and Pinocchio's
    write_log(tmp_path / "short.csv", robot, short, tau[:60:2])
    result = run("identify", IIWA, tmp_path / "short.csv", "-o", tmp_path / "short.urdf", "-q")
    assert result.exit_code == 0, result.output
    api.load_robot(tmp_path / "short.urdf", strict=True)
    model = pin.buildModelFromUrdf(str(tmp_path / "short.urdf"))
    assert all(pinocchio_valid(model.inertias[i]) for i in range(1, model.njoints))


def test_identify_writes_a_valid_robot_that_predicts_as_reported(iiwa, tmp_path):
    robot, truth, fit, tau, hold, tau_hold, sigma = iiwa
    write_log(tmp_path / "log.csv", robot, fit, tau)
    write_log(tmp_path / "hold.h5", robot, hold, tau_hold)
    out, report = tmp_path / "identified.urdf", tmp_path / "report.json"
    result = run("identify", IIWA, tmp_path / "log.csv", "--holdout", tmp_path / "hold.h5",
                 "-o", out, "--report", report, "-q")
    assert result.exit_code == 0, result.output
    data = json.loads(report.read_text())
    assert data["condition_number"] < 30 and len(data["base_parameters"]) == 43
    assert "m_iiwa_link_1" in data["unseen"] and data["least_squares_inconsistent_links"]
    api.load_robot(out, strict=True)  # hodyn's inertia checks: warnings would be errors
    model = pin.buildModelFromUrdf(str(out))
    assert all(pinocchio_valid(model.inertias[i]) for i in range(1, model.njoints))
    assert "<!--" in out.read_text()  # the rest of the file as it was
    assert run("compute", out, tmp_path / "hold.h5", "-o", tmp_path / "tau.h5", "--order", "0",
               "-q").exit_code == 0
    computed = read_tau(tmp_path / "tau.h5")
    rms = np.sqrt(((computed - tau_hold) ** 2).mean(axis=0))
    assert np.allclose(rms, list(data["holdout_rms"].values()), rtol=1e-6)
    assert np.all(rms < 1.2 * sigma)


def read_tau(path):
    import h5py

    with h5py.File(path) as f:
        return f["tau"][:]


def test_estimated_derivatives_with_the_torques_filtered_alike(iiwa, tmp_path):
    """Only q and tau in the log: qd, qdd estimated from q low-passed at 5 Hz, the torques
    through the same filter; the estimate predicts the held-out torques at the noise level."""
    robot, truth, fit, tau, hold, tau_hold, sigma = iiwa
    write_log(tmp_path / "q.csv", robot, fit, tau, derivatives=1)
    write_log(tmp_path / "hold.csv", robot, hold, tau_hold)
    report = tmp_path / "r.json"
    result = run("identify", IIWA, tmp_path / "q.csv", "--holdout", tmp_path / "hold.csv",
                 "--estimate-derivatives", "--cutoff", "5", "-o", tmp_path / "id.urdf",
                 "--report", report, "-q")
    assert result.exit_code == 0, result.output
    data = json.loads(report.read_text())
    assert data["estimated_derivatives"] == ["qd", "qdd"]
    assert np.all(np.array(list(data["holdout_rms"].values())) < 1.3 * sigma)


def test_a_log_streams_in_chunks_with_its_end_zones_left_out(iiwa, tmp_path):
    """A log of q and tau read chunk by chunk (chunks of 37 samples; the estimate's windows)
    gives what it gives read whole: the estimated derivatives and the torques low-passed
    alike (Lowpass over the whole record), less the estimate's end zones at each end; the
    fit from the chunks equals the fit from the whole."""
    from hodyn_cli.algorithms.motion.estimate import Lowpass
    from hodyn_cli.pipeline.identification import Log

    robot, truth, fit, tau, *_ = iiwa
    write_log(tmp_path / "q.csv", robot, fit, tau, derivatives=1)
    options = {"estimate": True, "cutoff": 5.0}
    whole, pieces = (list(Log(str(tmp_path / "q.csv"), robot, chunk=c, **options))
                     for c in (10**6, 37))
    assert len(whole) == 1 and len(pieces) > 10
    log = Log(str(tmp_path / "q.csv"), robot, chunk=37, **options)
    n = sum(len(torques) for _, torques in log)
    e = (fit.n_samples - n) // 2
    assert e > 0 and n == fit.n_samples - 2 * e and log.samples == n
    assert log.trimmed == pytest.approx(e * (fit.t[1] - fit.t[0]), rel=1e-6)
    motion = np.concatenate([m.derivatives for m, _ in pieces])
    assert np.array_equal(np.concatenate([m.t for m, _ in pieces]), fit.t[e:-e])
    assert np.allclose(motion, whole[0][0].derivatives, rtol=0, atol=1e-9)
    filtered = Lowpass(5.0, 1 / (fit.t[1] - fit.t[0]))(tau)[e:-e]
    assert np.allclose(np.concatenate([t for _, t in pieces]), filtered, rtol=0, atol=1e-9)
    a, b = (api.identify(robot, Log(str(tmp_path / "q.csv"), robot, chunk=c, **options),
                         constrained=False) for c in (10**6, 37))
    assert np.allclose(a.base_estimate, b.base_estimate, rtol=1e-9, atol=1e-12)


def rnea_rate(model, names, motion: Trajectory) -> np.ndarray:
    """d tau / dt along the motion from Pinocchio's partial derivatives:
    ``dtau/dq qd + dtau/dv qdd + M qddd``."""
    data = model.createData()
    idx = [model.joints[model.getJointId(n)].idx_q for n in names]
    out = np.empty((motion.n_samples, len(names)))
    for s in range(motion.n_samples):
        q, v, a, j = (np.zeros(model.nq) for _ in range(4))
        q[idx], v[idx], a[idx], j[idx] = (motion.derivatives[s, k] for k in range(4))
        pin.computeRNEADerivatives(model, data, q, v, a)
        M = np.triu(data.M) + np.triu(data.M, 1).T
        out[s] = (data.dtau_dq @ v + data.dtau_dv @ a + M @ j)[idx]
    return out


def test_torque_rates_are_measurements_too(tmp_path):
    """Measured torque rates (taud_<joint> columns, e.g. from an elastic joint's spring) are
    rows of their own, ``Y' pi = taud``, with their own noise estimate: without noise the
    base parameters to 1e-8 from tau and taud (Pinocchio's rates of a perturbed iiwa); with
    tau 50x noisier than taud the rates carry the estimate (standard errors ~50 times
    smaller than tau's alone, the truth within 4 of them); the report names the rate rows;
    rates with --drives are one line (the drives' terms are taken out at order 0 only)."""
    robot = api.load_robot(IIWA)
    truth = perturbed(IIWA, 5)
    design = api.design_motion(robot, "fourier", seed=8, duration=10.0, rate=40.0,
                               derivatives=3)
    motion = next(design.chunks)
    tau, taud = rnea(truth, robot.joint_names, motion), rnea_rate(truth, robot.joint_names,
                                                                  motion)
    pi = truth_parameters(truth, robot)
    exact = api.identify(robot, [(motion, np.stack([tau, taud], axis=1))], constrained=False)
    assert exact.joint_names[7:] == tuple(f"taud_{j}" for j in robot.joint_names)
    assert np.allclose(exact.base_estimate, exact.base.base_map @ pi, rtol=1e-8,
                       atol=1e-8 * np.abs(exact.base_estimate).max())
    rng = np.random.default_rng(9)
    noisy_tau = tau + rng.normal(size=tau.shape) * 0.5 * np.abs(tau).max(axis=0)
    noisy_taud = taud + rng.normal(size=taud.shape) * 0.01 * np.abs(taud).max(axis=0)
    alone = api.identify(robot, [(motion, noisy_tau)], constrained=False)
    both = api.identify(robot, [(motion, np.stack([noisy_tau, noisy_taud], axis=1))],
                        constrained=False)
    assert np.median(alone.standard_errors / both.standard_errors) > 20  # (47 measured)
    z = (both.base_estimate - both.base.base_map @ pi) / both.standard_errors
    assert np.abs(z).max() < 4, z
    # the log as a file: taud_<joint> columns are read as rates (q to qddd needed)
    datasets, columns = trajectory_datasets(motion)
    names = {"tau": [f"tau_{j}" for j in robot.joint_names],
             "taud": [f"taud_{j}" for j in robot.joint_names]}
    with open_sink(str(tmp_path / "rates.csv"), {**columns, **names},
                   {"joint_names": list(robot.joint_names)}) as sink:
        sink.write(datasets | {"tau": noisy_tau, "taud": noisy_taud})
    report = tmp_path / "r.json"
    result = run("identify", IIWA, tmp_path / "rates.csv", "-o", tmp_path / "id.urdf",
                 "--report", report, "-q")
    assert result.exit_code == 0, result.output
    data = json.loads(report.read_text())
    assert list(data["noise"])[7:] == names["taud"]
    assert np.allclose([p["estimate"] for p in data["base_parameters"]], both.base_estimate,
                       rtol=1e-9, atol=1e-12)
    datasets, columns = trajectory_datasets(Trajectory(motion.joint_names,   # q, qd, qdd only
                                                       motion.derivatives[:, :3], motion.t))
    with open_sink(str(tmp_path / "short.csv"), {**columns, **names},
                   {"joint_names": list(robot.joint_names)}) as sink:
        sink.write(datasets | {"tau": noisy_tau, "taud": noisy_taud})
    bad = run("identify", IIWA, tmp_path / "short.csv", "-o", tmp_path / "x.urdf")
    assert bad.exit_code == 2 and bad.stderr.count("\n") == 1
    assert "qddd_iiwa_joint_1" in bad.stderr and "taud_<joint> need them" in bad.stderr
    (tmp_path / "dir.json").mkdir()   # an output that is a directory: nothing written
    bad = run("identify", IIWA, tmp_path / "rates.csv", "-o", tmp_path / "y.urdf", "--report",
              tmp_path / "dir.json")
    assert bad.exit_code == 2 and "is a directory" in bad.stderr
    assert not (tmp_path / "y.urdf").exists()
    bad = run("identify", IIWA, tmp_path / "rates.csv", "--drives", URDF / "iiwa14_motors.toml",
              "-o", tmp_path / "x.urdf")
    assert bad.exit_code == 2 and bad.stderr.count("\n") == 1
    assert "torque rates (taud_<joint> columns) does not go with --drives" in bad.stderr


def test_friction_and_rotor_inertias_written_to_a_drives_file(tmp_path):
    """Motor torques referred to the joints (the drives' model, docs/drives.md) of the iiwa
    with its motors' friction, 0.5 % noise: the identified drives file loads, its viscous
    friction near the true one, its other keys as they were."""
    robot = api.load_robot(URDF / "iiwa14.urdf")
    drives = api.read_drives(robot, URDF / "iiwa14_motors.toml")
    motion = fourier(robot, 5, 600, 20.0)
    tau = drives.gear_ratio * drives.gear_efficiency * api.drive_dynamics(
        robot, drives, motion, order=0).taum
    tau += np.random.default_rng(0).normal(size=tau.shape) * 0.005 * np.abs(tau).max(axis=0)
    write_log(tmp_path / "log.csv", robot, motion, tau)
    result = run("identify", IIWA, tmp_path / "log.csv", "--drives", URDF / "iiwa14_motors.toml",
                 "--friction", "--armature", "-o", tmp_path / "id.urdf", "--report",
                 tmp_path / "r.html", "-q")
    assert result.exit_code == 0, result.output
    page = (tmp_path / "r.html").read_text()
    assert "<h2>Base parameters</h2>" in page and "viscous_iiwa_joint_1" in page
    identified = api.read_drives(robot, tmp_path / "id_drives.toml")
    assert np.allclose(identified.friction.viscous, drives.friction.viscous, rtol=0.02)
    assert np.all(identified.gear_ratio == drives.gear_ratio)  # the file's other keys kept


def test_the_efforts_hodyn_import_writes_are_torques(iiwa, tmp_path):
    """A log as hodyn import writes it (t, q, qd, effort; here with qdd too), CSV and HDF5
    (dataset effort): effort_<joint> read as the measured torques, the same estimate as from
    tau_<joint>."""
    robot, truth, fit, tau, *_ = iiwa
    rows = slice(0, 300)
    short = Trajectory(fit.joint_names, fit.derivatives[rows], fit.t[rows])
    write_log(tmp_path / "tau.csv", robot, short, tau[rows])
    lines = (tmp_path / "tau.csv").read_text().splitlines()
    (tmp_path / "effort.csv").write_text("\n".join([lines[0].replace("tau_", "effort_"),
                                                    *lines[1:]]) + "\n")
    data, columns = trajectory_datasets(short)
    with open_sink(str(tmp_path / "effort.h5"),
                   {**columns, "effort": [f"effort_{j}" for j in robot.joint_names]},
                   {"joint_names": list(robot.joint_names)}) as sink:
        sink.write(data | {"effort": tau[rows]})
    for name in ("tau.csv", "effort.csv", "effort.h5"):
        result = run("identify", IIWA, tmp_path / name, "-o", tmp_path / f"{name}.urdf", "-q")
        assert result.exit_code == 0, result.output
    for name in ("effort.csv", "effort.h5"):
        assert (tmp_path / "tau.csv.urdf").read_text() == (tmp_path / f"{name}.urdf").read_text()


def test_errors_are_one_line(iiwa, tmp_path):
    robot, truth, fit, tau, *_ = iiwa
    write_trajectory_only = tmp_path / "no_tau.csv"
    data, columns = trajectory_datasets(fit)
    with open_sink(str(write_trajectory_only), columns, {}) as sink:
        sink.write(data)
    write_log(tmp_path / "short.csv", robot, Trajectory(fit.joint_names, fit.derivatives[:5],
                                                        fit.t[:5]), tau[:5])
    write_log(tmp_path / "log.csv", robot, fit, tau)
    out = tmp_path / "out.urdf"
    for args, words in (
            ((write_trajectory_only,), ("no_tau.csv", "tau_iiwa_joint_1")),
            ((tmp_path / "short.csv",), ("short.csv", "5 samples", "43 base parameters")),
            ((tmp_path / "short.csv", "--floating-base"), ("short.csv", "base_")),
            ((tmp_path / "short.csv", "--floating-base", "--estimate-derivatives"),
             ("--floating-base", "--estimate-derivatives"))):
        result = run("identify", IIWA, *args, "-o", out)
        assert result.exit_code == 2, result.output
        assert result.stderr.count("\n") == 1 and all(w in result.stderr for w in words), \
            result.stderr
        assert not out.exists()
    # a report that cannot be written: no robot written either
    result = run("identify", IIWA, tmp_path / "log.csv", "-o", out, "--report",
                 tmp_path / "nowhere" / "r.json")
    assert result.exit_code == 2 and "nowhere" in result.stderr and not out.exists()


def test_a_joint_missing_from_an_hdf5_logs_currents_is_named_as_its_dataset(tmp_path):
    """An HDF5 log whose motor currents (dataset ``current``) lack a joint's (root attribute
    ``current_joint_names`` lists one of the two): one line naming the dataset, the joint and
    the attribute, not a CSV column ``current_joint2`` the file cannot have; the same log as
    CSV names that column. Nothing written either way."""
    robot = api.load_robot(URDF / "planar_2r.urdf")
    t = np.linspace(0.0, 1.0, 40)
    motion = Trajectory(robot.joint_names,
                        np.random.default_rng(0).normal(size=(t.size, 3, 2)), t)
    data, columns = trajectory_datasets(motion)
    for name in ("current.h5", "current.csv"):
        with open_sink(str(tmp_path / name), {**columns, "current": ["current_joint1"]},
                       {"joint_names": list(robot.joint_names),
                        "current_joint_names": ["joint1"]}) as sink:
            sink.write(data | {"current": motion.q[:, :1]})
        result = run("identify", URDF / "planar_2r.urdf", tmp_path / name, "-o",
                     tmp_path / "x.urdf")
        assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output
        assert name in result.stderr and "joint2" in result.stderr, result.stderr
        hdf5 = name.endswith(".h5")
        assert ("dataset 'current'" in result.stderr) == hdf5, result.stderr
        assert ("'current_joint_names'" in result.stderr) == hdf5, result.stderr
        assert ("current_joint2" in result.stderr) != hdf5, result.stderr
        assert not (tmp_path / "x.urdf").exists()


def test_log_cholesky_is_pinocchios_and_covers_every_consistent_body():
    rng = np.random.default_rng(0)
    theta = rng.normal(size=(20, 10))
    pi = C.parameters_of(C.from_log_cholesky(theta))
    ref = np.array([pin.LogCholeskyParameters(t).toDynamicParameters() for t in theta])
    assert np.allclose(pi, ref, rtol=1e-12, atol=1e-12)
    assert np.allclose(C.log_cholesky(C.pseudo_inertia(pi)), theta, atol=1e-8)
    assert C.consistent(pi).all()  # every theta is a body
    # the pseudo-inertia test agrees with Pinocchio's inertias' (its random ones break the
    # triangle inequality about half the time)
    inertias = [pin.Inertia.Random() for _ in range(200)]
    ours = C.consistent(np.array([i.toDynamicParameters() for i in inertias]))
    assert 0 < ours.sum() < len(ours)
    assert ours.tolist() == [pinocchio_valid(i) for i in inertias]


def test_excitation_on_a_small_robot_is_better_conditioned_than_one_harmonic(tmp_path):
    robot = api.load_robot(URDF / "planar_2r.urdf")
    cond = {}
    for kind, harmonics in (("excitation", 3), ("fourier", 1)):
        out = tmp_path / f"{kind}.csv"
        result = run("generate", URDF / "planar_2r.urdf", "--kind", kind, "--harmonics",
                     harmonics, "--rate", "20", "-o", out, "-q")
        assert result.exit_code == 0, result.output
        cond[kind] = condition_of(robot, out)
    assert cond["excitation"] < cond["fourier"] / 2, cond


def test_the_excitation_designs_judged_together_are_each_judged_alone():
    """The design's objective is judged for a batch of designs in one regressor call (the
    gradient's forward differences): each design's value equals its own call, and the
    gradient equals scipy's forward differences of the one-design objective."""
    from scipy.optimize import approx_fprime

    from hodyn_cli.algorithms.planning.excitation import STEP, Excitation
    from hodyn_cli.modeling.limits import joint_limits

    robot = api.load_robot(URDF / "gripper_arm.urdf")
    problem = Excitation(robot, joint_limits(robot), harmonics=2)
    X = np.random.default_rng(3).normal(size=(4, 2 * len(robot.coordinate_names) * 2))
    together = problem.objectives(X)
    alone = [problem.objectives(x[None])[0] for x in X]
    np.testing.assert_allclose(together, alone, rtol=1e-12)
    value, gradient = problem.objective_and_gradient(X[0])
    assert value == together[0]
    reference = approx_fprime(X[0], lambda x: problem.objectives(x[None])[0], STEP)
    np.testing.assert_allclose(gradient, reference, rtol=1e-6, atol=1e-6)
    assert np.abs(gradient).max() > 1e-3  # the designs differ: the test can fail


def test_conditions_of_a_stack_are_each_ones_to_the_bit():
    """The excitation design judges its designs' condition numbers as one stack: the same
    bits as one matrix at a time (the designs it chooses unchanged), the Gram matrix's
    branch, the SVD's (beyond GRAM_CONDITION) and a column of zeros alike."""
    from hodyn_cli.algorithms.identification.least_squares import (
        GRAM_CONDITION,
        condition,
        conditions,
    )

    rng = np.random.default_rng(5)
    A = rng.normal(size=(6, 200, 12)) * np.logspace(-3, 3, 12)
    A[1, :, 4] = 0.0  # infinite
    A[2, :, 7] = A[2, :, 3] + 1e-9 * A[2, :, 7]  # nearly dependent: by the SVD
    stacked = conditions(A)
    assert np.array_equal(stacked, [condition(a) for a in A])
    assert stacked[1] == np.inf and stacked[2] > GRAM_CONDITION > stacked[0]
    scaled = A[2] / np.linalg.norm(A[2], axis=0)
    np.testing.assert_allclose(stacked[2], np.linalg.cond(scaled), rtol=1e-6)


def condition_of(robot, path) -> float:
    from hodyn_cli.algorithms.identification.least_squares import condition

    motion = read_trajectory(str(path), robot, need=3)
    base = api.regressor_basis(robot)
    Y = api.dynamic_regressor(robot, motion, base=base).Y_base
    return condition(Y.reshape(-1, len(base.names)))


@pytest.mark.slow
def test_excitation_on_the_iiwa_ten_times_better_conditioned_and_within_limits(tmp_path):
    robot = api.load_robot(IIWA)
    limits = URDF / "iiwa14_limits.toml"
    cond = {}
    for kind, harmonics in (("excitation", 5), ("fourier", 1)):
        out = tmp_path / f"{kind}.csv"
        result = run("generate", IIWA, "--kind", kind, "--harmonics", harmonics,
                     "--respect-limits", limits, "-o", out, "-q")
        assert result.exit_code == 0, result.output
        cond[kind] = condition_of(robot, out)
    assert cond["excitation"] * 10 <= cond["fourier"], cond
    assert run("check", IIWA, tmp_path / "excitation.csv", "--limits", limits, "-q"
               ).exit_code == 0


#: drives for every iiwa joint (joint-side friction, rotors): what the current test's motor
#: torques come from, with Pinocchio's armature (the reflected model, docs/drives.md)
CURRENT_DRIVES = "".join(
    f"[joints.iiwa_joint_{j}]\ngear_ratio = {r}\nrotor_inertia = {rotor}\ngear_efficiency = 0.8\n"
    f"torque_constant = {k_t}\nviscous = {v}\ncoulomb = {c}\ncoulomb_velocity = 0.05\n"
    f"offset = {o}\n\n"
    for j, r, rotor, k_t, v, c, o in zip(range(1, 8), (160, -160, 120, 120, 100, 100, 80),
                                         (3e-4, 3e-4, 2e-4, 2e-4, 1e-4, 1e-4, 5e-5),
                                         (0.3, 0.3, 0.25, 0.25, 0.2, 0.2, 0.15),
                                         (4.0, 4.0, 2.0, 2.0, 1.0, 1.0, 0.5),
                                         (3.0, 3.0, 1.5, 1.5, 0.8, 0.8, 0.4),
                                         (0.5, -0.5, 0.2, 0.2, 0.1, -0.1, 0.05),
                                         strict=True))


def motor_currents(truth, robot, motion, tau, table):
    """The currents of the drives ``table`` (reflected model) for the joint torques ``tau``,
    from Pinocchio and the constants alone: ``r eta k_t i = tau + f_J(qd) + eta I r^2 qdd``
    (Pinocchio's rnea with armature eta I r^2 gives tau + eta I r^2 qdd)."""
    import tomllib

    joints = [tomllib.loads(table)["joints"][j] for j in robot.joint_names]
    r, rotor, eta, k_t, v, c, o, cv = (np.array([d[k] for d in joints]) for k in (
        "gear_ratio", "rotor_inertia", "gear_efficiency", "torque_constant", "viscous",
        "coulomb", "offset", "coulomb_velocity"))
    armed = truth.copy()
    armed.armature[:] = eta * rotor * r**2
    motor = (tau - rnea(truth, robot.joint_names, motion) + rnea(armed, robot.joint_names, motion)
             + v * motion.qd + c * np.tanh(motion.qd / cv) + o)
    return motor / (r * eta * k_t)


def test_motor_currents_identify_what_the_torques_do(iiwa, tmp_path):
    """A log of motor currents (CSV, and HDF5 as hodyn compute --drives writes them: dataset
    current, attribute current_joint_names) whose drives have friction and rotors: with the
    drives file's constants and its friction and rotors taken as known, the same parameters
    as the joint torques the currents came from; with friction and rotor inertias identified
    too, the friction the file has."""
    from hodyn_cli.pipeline.identification import Log

    robot, truth, fit, tau, hold, tau_hold, sigma = iiwa
    rows = slice(0, 400)
    motion = Trajectory(fit.joint_names, fit.derivatives[rows], fit.t[rows])
    drives = tmp_path / "drives.toml"
    drives.write_text(CURRENT_DRIVES)
    current = motor_currents(truth, robot, motion, tau[rows], CURRENT_DRIVES)
    data, columns = trajectory_datasets(motion)
    names = [f"current_{j}" for j in robot.joint_names]
    for path in (tmp_path / "current.csv", tmp_path / "current.h5"):
        with open_sink(str(path), {**columns, "current": names},
                       {"joint_names": list(robot.joint_names),
                        "current_joint_names": list(robot.joint_names)}) as sink:
            sink.write(data | {"current": current})
    torques = api.identify(robot, [(motion, tau[rows])], constrained=False)
    # the command on the HDF5 log, with the drives' model the currents came from
    report = tmp_path / "r.json"
    result = run("identify", IIWA, tmp_path / "current.h5", "-o", tmp_path / "c.urdf",
                 "--report", report, "--drives", drives, "--model", "reflected", "-q")
    assert result.exit_code == 0, result.output
    same = [p["estimate"] for p in json.loads(report.read_text())["base_parameters"]]
    assert np.allclose(same, torques.base_estimate, rtol=1e-6, atol=1e-8)
    # the CSV log, read as the command reads it (r eta k_t i): the full model (default) adds
    # the rotors' gyroscopic coupling, small at these speeds
    known = api.read_drives(robot, drives)
    full = api.identify(robot, Log(str(tmp_path / "current.csv"), robot, drives=known),
                        drives=known, constrained=False, base=torques.base).base_estimate
    assert not np.allclose(full, same, rtol=1e-6, atol=1e-8)
    assert np.allclose(full, same, rtol=0.05, atol=0.05 * np.abs(same).max())
    # friction and rotor inertias identified from the currents
    both = api.identify(robot, Log(str(tmp_path / "current.csv"), robot, drives=known,
                                   chunk=100), drives=known, friction=True,
                        armature=True, drive_model="reflected", constrained=False)
    viscous = [both.parameters[both.names.index(f"viscous_{j}")] for j in robot.joint_names]
    assert np.allclose(viscous, known.friction.viscous, rtol=0.1)
    # currents without the drives' constants: one line
    result = run("identify", IIWA, tmp_path / "current.csv", "-o", tmp_path / "x.urdf")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "current.csv" in result.stderr and "--drives" in result.stderr
    assert not (tmp_path / "x.urdf").exists()


def test_a_missing_position_is_not_a_derivative_to_estimate(iiwa, tmp_path):
    """The missing-columns error suggests --estimate-derivatives only where the positions are
    there (identify, and the streaming commands' reader: compute), not for a missing q_."""
    robot, truth, fit, tau, *_ = iiwa
    short = Trajectory(fit.joint_names, fit.derivatives[:40], fit.t[:40])
    write_log(tmp_path / "q.csv", robot, short, tau[:40], derivatives=1)
    lines = (tmp_path / "q.csv").read_text().splitlines()
    header = lines[0].split(",")
    keep = [k for k, name in enumerate(header) if name != "q_iiwa_joint_7"]
    (tmp_path / "no_q7.csv").write_text("\n".join(",".join(line.split(",")[k] for k in keep)
                                                  for line in lines) + "\n")
    for command, extra in (("identify", ("-o", tmp_path / "x.urdf")),
                           ("compute", ("-o", tmp_path / "x.csv"))):
        for name, hinted in (("q.csv", True), ("no_q7.csv", False)):
            result = run(command, IIWA, tmp_path / name, *extra)
            assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
            assert ("--estimate-derivatives" in result.stderr) == hinted, result.stderr
            assert hinted or "q_iiwa_joint_7" in result.stderr


def free_quadruped(seed: int, N: int, rng):
    """The quadruped as a free body at N random states (root orientation, twist and its
    rate, joints; drawn from ``rng``): ``(robot, Pinocchio's free-flyer model of it with
    every body perturbed by ``seed``, its data, order: hodyn's index of its joints, the
    motion, the true parameters, root first)``."""
    from conftest import pinocchio_free_flyer
    from hodyn_cli.core import lie
    from hodyn_cli.core.trajectory import BaseMotion

    path = URDF / "quadruped.urdf"
    robot = api.load_robot(path)
    _, truth, data, order = pinocchio_free_flyer(path, robot)
    perturbed(path, seed, truth)
    R = np.stack([lie.rotation_exp(a / np.linalg.norm(a), np.linalg.norm(a))
                  for a in rng.normal(size=(N, 3))])
    base = BaseMotion(R, rng.normal(size=(N, 3)), rng.normal(size=(N, 2, 6)))
    q = rng.uniform(robot.limits[:, 0], robot.limits[:, 1], size=(N, robot.n))
    motion = Trajectory(robot.joint_names, np.stack([q, *rng.normal(size=(2, N, robot.n)) * 3],
                                                    axis=1), np.arange(N) * 0.01, base=base)
    pi = np.concatenate([truth.inertias[1].toDynamicParameters()]
                        + [truth.inertias[truth.getJointId(n)].toDynamicParameters()
                           for n in robot.joint_names])
    return robot, truth, data, order, motion, pi


def free_flyer_state(truth, order, motion: Trajectory, s: int) -> tuple:
    """Pinocchio's (q, v, a) of sample s of a free quadruped's ``motion``."""
    from conftest import free_flyer_q, free_flyer_rate

    base = motion.base
    return (free_flyer_q(pin, truth, order, base.R[s], base.p[s], motion.q[s]),
            free_flyer_rate(order, base.Vb[s, 0], motion.qd[s]),
            free_flyer_rate(order, base.Vb[s, 1], motion.qdd[s]))


def test_floating_base_from_joint_torques_and_the_base_wrench(tmp_path):
    """The quadruped as a free body: joint torques and base wrench from Pinocchio's
    free-flyer rnea of a perturbed robot (root included), 1 % noise on every row, at random
    states (root orientation, twist and its rate, joints): the base parameters (the root's
    among them) within their standard errors, the written URDF physically valid and its root
    link's inertial the identified one; a log without the base wrench is one line."""
    from scipy.stats import chi2

    from conftest import LINEAR_FIRST
    from hodyn_cli.core.trajectory import Wrenches

    path = URDF / "quadruped.urdf"
    N, rng = 250, np.random.default_rng(6)
    robot, truth, data, order, motion, pi = free_quadruped(2, N, rng)
    base, q = motion.base, motion.q
    exact = np.empty((N, 6 + robot.n))
    for s in range(N):
        out = pin.rnea(truth, data, *free_flyer_state(truth, order, motion, s))
        exact[s, 6 + np.asarray(order)] = out[6:]
        exact[s, LINEAR_FIRST] = -out[:6]  # what the root exerts on its supports
    sigma = NOISE * np.abs(exact).max(axis=0)
    measured_rows = exact + rng.normal(size=exact.shape) * sigma
    result = api.identify(robot, [(motion, measured_rows)], constrained=False)
    z, total = errors(result, pi)
    r = len(z)
    assert r == 94 and result.bodies == robot.n + 1
    assert np.mean(np.abs(z) < 2) >= 0.88, z
    assert chi2.ppf(0.001, r) < total < chi2.ppf(0.999, r), total
    assert np.allclose(result.noise / sigma, 1, atol=0.15)
    # the log as files: the base wrench as hodyn compute --base-wrench writes it
    root = robot.root_link
    logged = Trajectory(motion.joint_names, motion.derivatives, motion.t,
                        Wrenches({root: measured_rows[:, None, :6]}), base=base)
    from hodyn_cli.io.results import base_datasets

    for name, wrench in (("log.csv", True), ("log.h5", True), ("no_wrench.csv", False),
                         ("no_wrench.h5", False)):
        data_, columns = trajectory_datasets(logged if wrench else motion)
        more, cols = base_datasets(logged)
        columns = {**columns, **cols, "tau": [f"tau_{j}" for j in robot.joint_names]}
        with open_sink(str(tmp_path / name), columns,
                       {"joint_names": list(robot.joint_names)}) as sink:
            sink.write(data_ | more | {"tau": measured_rows[:, 6:]})
    from hodyn_cli.pipeline.identification import Log

    pieces = list(Log(str(tmp_path / "log.csv"), robot, floating=True, chunk=7))
    assert len(pieces) > 1  # read chunk by chunk
    torques = np.concatenate([tau for _, tau in pieces])
    assert np.allclose(torques, measured_rows, rtol=1e-12, atol=1e-12)
    assert np.allclose(np.concatenate([m.base.Vb for m, _ in pieces]), base.Vb[:, :2])
    assert np.allclose(np.concatenate([m.q for m, _ in pieces]), q)
    out, report = tmp_path / "identified.urdf", tmp_path / "r.json"
    result_ = run("identify", path, tmp_path / "log.h5", "--floating-base", "-o", out,
                  "--report", report, "-q")
    assert result_.exit_code == 0, result_.output
    data_ = json.loads(report.read_text())
    estimate = [p["estimate"] for p in data_["base_parameters"]]
    assert np.allclose(estimate, result.base_estimate, rtol=1e-9, atol=1e-12)
    assert data_["consistent_solver_converged"] and list(data_["noise"])[0] == f"W_{root}_mx"
    api.load_robot(out, strict=True)
    model = pin.buildModelFromUrdf(str(out), pin.JointModelFreeFlyer())
    assert all(pinocchio_valid(model.inertias[i]) for i in range(1, model.njoints))
    identified = np.array([p["identified"] for p in data_["parameters"]])
    assert np.allclose(model.inertias[1].toDynamicParameters(), identified[:10])
    # a log without the base wrench: its columns, or in an HDF5 file its dataset, named
    for name, missing in (("no_wrench.csv", f"column(s) W_{root}_mx"),
                          ("no_wrench.h5", f"dataset(s) wrench/{root}/W (")):
        bad = run("identify", path, tmp_path / name, "--floating-base", "-o",
                  tmp_path / "x.urdf")
        assert bad.exit_code == 2 and bad.stderr.count("\n") == 1, bad.stderr
        assert missing in bad.stderr and name in bad.stderr, bad.stderr
        assert ("W_" in bad.stderr) == name.endswith(".csv"), bad.stderr
        assert not (tmp_path / "x.urdf").exists()


def test_floating_base_from_the_wrenches_measured_at_its_contacts(tmp_path):
    """The quadruped standing on a force-torque sensor at one foot, no noise: Pinocchio's
    free-flyer rnea of a perturbed robot with the foot's wrench as its external force, chosen
    so that the root needs none (a free robot; the log has no base wrench, only W_FL_foot),
    and with a random foot wrench and the base wrench it then needs: hodyn identifies the
    robot's base parameters from the log (J^T W of the measured wrenches taken out) to 1e-7.
    """
    from conftest import LINEAR_FIRST
    from hodyn_cli.core.trajectory import Wrenches
    from hodyn_cli.io.results import base_datasets
    from hodyn_cli.pipeline.identification import Log

    N, rng = 150, np.random.default_rng(7)
    robot, truth, data, order, motion, pi = free_quadruped(3, N, rng)
    base = motion.base
    foot = truth.frames[truth.getFrameId("FL_foot")]
    joint = foot.parentJoint
    rows, W = np.zeros((2, N, 6 + robot.n)), np.empty((2, N, 6))
    for s in range(N):
        x = free_flyer_state(truth, order, motion, s)
        pin.forwardKinematics(truth, data, x[0])
        to_root = data.oMi[1].actInv(data.oMi[joint])  # the foot's joint frame in the root's
        free = to_root.actInv(pin.Force(pin.rnea(truth, data, *x)[:6]))  # the root needs none
        for case, force in enumerate((free, pin.Force(rng.normal(size=6)))):
            fext = [pin.Force.Zero() for _ in range(truth.njoints)]
            fext[joint] = force
            out = pin.rnea(truth, data, *x, fext)
            rows[case, s, 6 + np.asarray(order)] = out[6:]
            rows[case, s, LINEAR_FIRST] = -out[:6]  # what the root exerts on its supports
            on_foot = foot.placement.actInv(force)  # (the environment's force on the robot)
            W[case, s] = -np.concatenate([on_foot.angular, on_foot.linear])
    assert np.abs(rows[0, :, :6]).max() < 1e-9 * np.abs(rows[0]).max()
    # the log of the free robot: its joint torques and the foot's sensor
    sensed = Trajectory(motion.joint_names, motion.derivatives, motion.t,
                        Wrenches({"FL_foot": W[0][:, None]}), base=base)
    datasets, columns = trajectory_datasets(sensed)
    more, cols = base_datasets(sensed)
    with open_sink(str(tmp_path / "feet.h5"), {**columns, **cols,
                                               "tau": [f"tau_{j}" for j in robot.joint_names]},
                   {"joint_names": list(robot.joint_names)}) as sink:
        sink.write(datasets | more | {"tau": rows[0, :, 6:]})
    from_file = api.identify(robot, Log(str(tmp_path / "feet.h5"), robot, floating=True,
                                        chunk=40), constrained=False)
    # in Python: the base wrench the random foot wrench leaves to the root, measured too
    both = api.identify(robot, [(Trajectory(motion.joint_names, motion.derivatives, motion.t,
                                            Wrenches({"FL_foot": W[1][:, None]}), base=base),
                                 rows[1])], constrained=False)
    for result in (from_file, both):
        expected = result.base.base_map @ pi
        assert np.allclose(result.base_estimate, expected, rtol=1e-7,
                           atol=1e-7 * np.abs(expected).max())
    ignored = api.identify(robot, [(motion, rows[1])], constrained=False)  # the sensor left out
    assert not np.allclose(ignored.base_estimate, both.base_estimate, rtol=1e-2)


#: the acrobot (mjcf/acrobot.xml) with its elbow's axis off the body origin and a hand welded
#: to the lower arm: the model body's frame is not the MuJoCo body's, and a welded body's
#: inertia is lumped into its moving one
ACROBOT = (ROOT / "mjcf" / "acrobot.xml").read_text().replace(
    '<joint name="elbow" type="hinge" axis="0 1 0"/>',
    '<joint name="elbow" type="hinge" axis="0 1 0" pos="0.05 0 0.2"/>').replace(
    '<site name="tip" pos="0 0 1" size="0.01"/>',
    '<site name="tip" pos="0 0 1" size="0.01"/>\n        <body name="hand" pos="0 0 1">'
    '<geom type="sphere" size="0.08" mass="0.4"/></body>')


def test_an_mjcf_robot_is_written_back_and_mujoco_reads_what_was_identified(tmp_path):
    """MuJoCo's own inverse dynamics (mj_inverse) of the acrobot with perturbed masses, COMs
    and inertias, 1 % noise: the identified MJCF keeps every other element, MuJoCo loads it
    with the identified mass, COM and inertia of every moving body (in its frame) and a
    massless welded hand, and its mj_inverse is hodyn's prediction with the identified
    parameters."""
    mujoco = pytest.importorskip("mujoco")
    path = tmp_path / "acrobot.xml"
    path.write_text(ACROBOT)
    robot = api.load_robot(path)
    truth = mujoco.MjModel.from_xml_string(ACROBOT)
    truth.dof_damping[:] = 0  # (joint damping: hodyn models the rigid bodies only)
    rng = np.random.default_rng(3)
    for b in range(1, truth.nbody):
        Sigma = 0.5 * truth.body_inertia[b].sum() - truth.body_inertia[b]  # >= 0
        Sigma = Sigma * rng.uniform(0.8, 1.2, 3)
        truth.body_mass[b] *= rng.uniform(0.8, 1.2)
        truth.body_ipos[b] += 0.02 * rng.normal(size=3)
        truth.body_inertia[b] = Sigma.sum() - Sigma

    def inverse(model, states):
        data = mujoco.MjData(model)
        out = np.empty((len(states), model.nv))
        for s, (q, v, a) in enumerate(states):
            data.qpos[:], data.qvel[:], data.qacc[:] = q, v, a
            mujoco.mj_inverse(model, data)
            out[s] = data.qfrc_inverse
        return out

    N = 300
    states = rng.normal(size=(N, 3, 2)) * [[2.0], [3.0], [6.0]]
    motion = Trajectory(robot.joint_names, states, np.arange(N) * 0.01)
    exact = inverse(truth, states)
    tau = exact + rng.normal(size=exact.shape) * NOISE * np.abs(exact).max(axis=0)
    write_log(tmp_path / "log.csv", robot, motion, tau)
    out, report = tmp_path / "identified.xml", tmp_path / "r.json"
    result = run("identify", path, tmp_path / "log.csv", "-o", out, "--report", report, "-q")
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert "<!--" in text and '<motor name="elbow"' in text and 'name="tip"' in text
    identified = np.array([p["identified"] for p in json.loads(report.read_text())["parameters"]])
    written = mujoco.MjModel.from_xml_path(str(out))
    written.dof_damping[:] = 0
    for b, name in enumerate(robot.link_names):
        pi = identified[10 * b: 10 * b + 10]
        body = written.body(name)
        R = np.empty(9)
        mujoco.mju_quat2Mat(R, body.iquat)
        R = R.reshape(3, 3)
        inertia = R @ np.diag(body.inertia) @ R.T  # about the COM, body frame
        T = robot.links[name].T
        m, c, Ic = inertial_of(pi)
        assert np.isclose(body.mass[0], m, rtol=1e-9)
        assert np.allclose(body.ipos, T[:3, :3].T @ (c - T[:3, 3]), atol=1e-9)
        assert np.allclose(inertia, T[:3, :3].T @ Ic @ T[:3, :3], rtol=1e-7, atol=1e-10)
    assert written.body("hand").mass[0] == 0
    predicted = api.predict_torques(robot, motion, identified)
    assert np.allclose(inverse(written, states), predicted, rtol=1e-8,
                       atol=1e-8 * np.abs(predicted).max())
    assert np.all(np.sqrt(((predicted - exact) ** 2).mean(axis=0))
                  < 0.5 * NOISE * np.abs(exact).max(axis=0))
    # a setting MuJoCo would override the written inertias with: one line, nothing written
    path.write_text(ACROBOT.replace("<option ", '<compiler settotalmass="3"/>\n  <option '))
    bad = run("identify", path, tmp_path / "log.csv", "-o", tmp_path / "x.xml")
    assert bad.exit_code == 2 and bad.stderr.count("\n") == 1 and "settotalmass" in bad.stderr
    assert not (tmp_path / "x.xml").exists()


def test_floating_base_from_the_torques_and_base_wrench_rates(tmp_path):
    """A floating base's log with the torque rates (taud_<joint>) and the base wrench's
    (Wd_<root>_*), no noise: rows of their own (``Y' pi = (Wd_base; taud)``, the free root's
    regressor to order 1) and hodyn's free-flyer inverse dynamics of a perturbed quadruped
    (its rate held to Pinocchio's in tests/test_free_root.py) give its base parameters to
    1e-7, in Python and from the file; a log with taud but no Wd_<root> is one line."""
    from dataclasses import replace

    from hodyn_cli.algorithms.backends.numpy.regressor import inertia_from_parameters
    from hodyn_cli.core.trajectory import Wrenches
    from hodyn_cli.io.results import base_datasets

    N, rng = 60, np.random.default_rng(8)
    robot, _, _, _, motion, pi = free_quadruped(4, N, rng)
    inertias = np.stack([inertia_from_parameters(pi[10 * b: 10 * b + 10])
                         for b in range(robot.n + 1)])
    truth = replace(robot, root_inertia=inertias[0], inertias=inertias[1:])
    motion = Trajectory(motion.joint_names, np.concatenate(
        [motion.derivatives, rng.normal(size=(N, 1, robot.n))], axis=1), motion.t,
        base=replace(motion.base, Vb=rng.normal(size=(N, 3, 6))))
    out = api.inverse_dynamics(truth, motion, order=1, base_wrench=True)
    rows = np.stack([np.concatenate([out.W, out.tau], axis=1),
                     np.concatenate([out.Wd, out.taud], axis=1)], axis=1)
    result = api.identify(robot, [(motion, rows)], constrained=False)
    root = robot.root_link
    assert result.joint_names[6 + robot.n:][:2] == (f"Wd_{root}_mx", f"Wd_{root}_my")
    assert result.joint_names[-1] == f"taud_{robot.joint_names[-1]}"
    expected = result.base.base_map @ pi
    assert np.allclose(result.base_estimate, expected, rtol=1e-7,
                       atol=1e-7 * np.abs(expected).max())
    # the log as a file: W, Wd of the root as compute --base-wrench --order 1 writes them
    from hodyn_cli.pipeline.identification import Log

    for name, wrench in (("log.h5", rows[:, :, None, :6]), ("no_wd.h5", rows[:, :1, None, :6])):
        logged = replace(motion, wrenches=Wrenches({root: wrench[:, :, 0]}))
        data_, columns = trajectory_datasets(logged)
        more, cols = base_datasets(logged)
        joints = list(robot.joint_names)
        with open_sink(str(tmp_path / name), {**columns, **cols,
                                               "tau": [f"tau_{j}" for j in joints],
                                               "taud": [f"taud_{j}" for j in joints]},
                       {"joint_names": joints}) as sink:
            sink.write(data_ | more | {"tau": rows[:, 0, 6:], "taud": rows[:, 1, 6:]})
    from_file = api.identify(robot, Log(str(tmp_path / "log.h5"), robot, floating=True,
                                        chunk=25), constrained=False)
    assert np.allclose(from_file.base_estimate, result.base_estimate, rtol=1e-9,
                       atol=1e-9 * np.abs(expected).max())
    bad = run("identify", URDF / "quadruped.urdf", tmp_path / "no_wd.h5", "--floating-base",
              "-o", tmp_path / "x.urdf")
    assert bad.exit_code == 2 and bad.stderr.count("\n") == 1, bad.stderr
    assert f"dataset(s) wrench/{root}/Wd (" in bad.stderr and "no_wd.h5" in bad.stderr
    assert "W_" not in bad.stderr and "Wd_" not in bad.stderr and "_<joint>" not in bad.stderr
    assert not (tmp_path / "x.urdf").exists()
