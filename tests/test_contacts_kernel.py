"""The compiled contacts' share (csrc/contacts.c) against the numpy code it stands for
(algorithms/contacts: frames.py, distribution.py), at every lane width and odd sample counts:
the contact frames' jets (contacts on the root, on welded links, behind prismatic joints),
one phase's distribution for each rank (full: soles, a sole with points, three and four
points; line: two points; none: one point) at orders 0..4 from random states, the motion on
its contacts end to end (random phases), and the edge cases numpy meets: two points at one
place (the line's jet divides by zero: NaN where numpy has NaN), a base wrench with NaN,
points exactly on a line taken as a full set (a determinant exactly zero: numpy's
LinAlgError), orders beyond the kernel's (numpy's own numbers). (The numpy reference is held
to Pinocchio and to finite differences in test_contacts.py.)"""

import numpy as np
import pytest
from scipy.linalg import block_diag

from conftest import floating_motion, legged_urdf, random_cosine, random_urdf
from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.backends.numpy.contacts import contact_map
from hodyn_cli.algorithms.contacts.dynamics import on_contacts
from hodyn_cli.core import jets
from hodyn_cli.modeling.contacts import contacts_from_table
from hodyn_cli.modeling.urdf import load_model, parse_model

pytestmark = pytest.mark.kernel

SOLE = {"type": "surface", "sole": [0.2, 0.1], "friction": 0.6}


def close(ours: np.ndarray, ref: np.ndarray, axis: int, tol: float = 1e-12,
          scale: np.ndarray | None = None) -> None:
    """Equal to ``tol`` of each derivative order's largest value (orders along ``axis``) of
    the reference (or of ``scale``: what a residual is measured against), NaN where the
    reference has NaN; 10 ``tol`` from the 3rd, 1e4 ``tol`` from the 9th (sums of more and
    larger terms, C(k, j) up to C(22, 11) = 7e5: observed 1e-12 at the 4th, 7e-10 at the
    22nd)."""
    assert ours.shape == ref.shape
    assert np.array_equal(np.isnan(ours), np.isnan(ref))
    scale = ref if scale is None else scale
    for k in range(ref.shape[axis]):
        a, b, c = (np.nan_to_num(x.take(k, axis=axis)) for x in (ours, ref, scale))
        bound = (tol if k <= 2 else 10 * tol if k <= 8 else 1e4 * tol) * \
            max(np.abs(c).max(initial=0), 1e-300)
        assert np.abs(a - b).max(initial=0) <= bound, k


def close_share(ours, ref, scale) -> None:
    """F and F in the contacts' axes to 1e-12 of their size, the couple left over ``b - A F``
    of ``scale`` (:func:`share_both`)."""
    for a, r, sc in zip(ours, ref, (None, scale, None), strict=True):
        close(a, r, axis=1, scale=sc)


@pytest.fixture(scope="module")
def legged():
    text = legged_urdf("solo", seed=3)
    model = parse_model(text.encode())
    feet = {f"p{k}": {"link": f"limb{k}_end", "type": "point", "friction": 0.5 + 0.1 * k,
                      "position": [0.01 * k, 0.0, -0.02], "weight": 1.0 + 0.5 * k}
            for k in range(4)}
    soles = {"s0": {"link": "limb0_end", **SOLE, "position": [0.02, 0.0, -0.03]},
             "s1": {"link": "limb1_end", **SOLE, "rpy": [0.1, -0.2, 0.3], "weight": 2.0},
             "imu": {"link": "imu", **SOLE, "rpy": [0.2, 0.1, 0.0]},              # on the root
             "base": {"link": "base_link", "type": "point", "friction": 0.7}}
    return text, model, contacts_from_table(model, feet | soles)


@pytest.mark.parametrize("K", [0, 1, 2, 4])
@pytest.mark.parametrize("n_samples", [1, 5, 19])
def test_contact_frames_match_numpy(legged, tmp_path_factory, kernel, K, n_samples):
    _, model, contacts = legged
    t = np.linspace(0, 2, n_samples)
    path = tmp_path_factory.mktemp("tree") / "random.urdf"
    path.write_text(random_urdf(5))   # every joint type, fixed joints, tilted axes
    tree = load_model(path)
    rng = np.random.default_rng(K)
    tree_contacts = contacts_from_table(tree, {
        f"c{k}": {"link": link, **SOLE, "position": rng.uniform(-0.1, 0.1, 3).tolist(),
                  "rpy": rng.uniform(-1, 1, 3).tolist()}
        for k, link in enumerate(tree.link_names)})
    for which, (m, cs) in enumerate(((model, contacts), (tree, tree_contacts))):
        qs = random_cosine(m, t, orders=K + 2, seed=n_samples).derivatives
        ours = kernel.contact_frames(m, kernel.data(m), qs, cs, K)
        if (which, K, n_samples) not in _FRAMES:
            _FRAMES[which, K, n_samples] = backends.load("numpy").contact_frames(
                m, backends.load("numpy").data(m), qs, cs, K)
        for a, b in zip(ours, _FRAMES[which, K, n_samples], strict=True):
            close(a, b, axis=2)


#: numpy's frames of test_contact_frames_match_numpy by (robot, order, samples): the same for
#: every kernel variant (random_urdf(5) and the contacts' rng are seeded), once a worker
_FRAMES: dict[tuple, tuple] = {}


def phase_inputs(legged, K: int, N: int, seed: int):
    """Frames' jets of a random state, the root's orientation jet, a random base wrench."""
    text, model, contacts = legged
    t = np.linspace(0, 1, N)
    traj = floating_motion(text, model, t, K + 1, seed=seed)[0]
    numpy_backend = backends.load("numpy")
    R, p = numpy_backend.contact_frames(model, numpy_backend.data(model), traj.derivatives, contacts, K)
    R0 = jets.rotation(traj.base.R, traj.base.Vb[..., :3], K, body=True)
    b = np.random.default_rng(seed).normal(size=(N, K + 1, 6)) * [1, 1, 1, 10, 10, 100]
    return contacts, R, p, R0, b


#: active contacts (of the legged fixture's) -> rank
PHASES = [(("s0", "s1"), "full"), (("s1", "p2", "p3"), "full"), (("p0", "p1", "p2"), "full"),
          (("p0", "p1", "p2", "p3"), "full"), (("p1", "p3"), "line"), (("p2",), "none"),
          (("s1",), "full"), (("imu", "base", "p0"), "full")]


def share_reference(contacts, R, p, R0, b, names, rank, rows):
    """The numpy backend's share of the phase (``ref``), the arguments it took, and the size
    of what the couple left over, ``b^(k) - sum_j C(k, j) A^(j) F^(k-j)``, is the difference
    of (rows, K+1, 1)."""
    on = np.array([i for i, c in enumerate(contacts) if c.name in names])
    point = np.array([c.kind == "point" for c in contacts])
    Hinv = block_diag(*[contacts[i].inverse_weights() for i in on])
    args = (R, p, R0, point, on, rows, Hinv, b, rank)
    ref = backends.load("numpy").contact_share(*args)
    A = np.concatenate([contact_map(R[rows, i], p[rows, i], None if R0 is None else R0[rows],
                                    point[i]) for i in on], axis=-1)
    size = jets.product(np.abs(A), np.abs(ref[0])[..., None])[..., 0]
    with np.errstate(invalid="ignore"):
        scale = np.maximum(np.abs(b[rows]), size).max(axis=-1, keepdims=True)
    return args, ref, scale


def share_both(kernel, contacts, R, p, R0, b, names, rank, rows):
    """Both backends' share of the phase and the size of what the couple left over
    (:func:`share_reference`)."""
    args, ref, scale = share_reference(contacts, R, p, R0, b, names, rank, rows)
    return kernel.contact_share(*args), ref, scale


@pytest.mark.parametrize("K", [0, 1, 2, 4])
@pytest.mark.parametrize("names, rank", PHASES)
def test_one_phase_matches_numpy(legged, kernel, K, names, rank):
    """F, the couple left over and F in the contacts' axes, on a random subset of the
    samples in a random order: those where three points and more spread across their line
    at least a tenth of along it (S's condition number below ~100; nearer a line any two
    implementations drift apart as cond(S) eps: 3e-12 at a 40th)."""
    if (K, names) not in _PHASE:
        _PHASE[K, names] = _one_phase_reference(legged, K, names, rank)
    args, ref, scale = _PHASE[K, names]
    close_share(kernel.contact_share(*args), ref, scale)
    if rank == "full":   # nothing left (the reference's own check)
        assert (np.abs(ref[1]) <= 1e-12 * scale).all()


#: numpy's side of test_one_phase_matches_numpy by (order, phase), and its inputs by order:
#: the same for every kernel variant, computed once a worker (most of the test's CPU)
_PHASE: dict[tuple, tuple] = {}
_PHASE_INPUTS: dict[int, tuple] = {}


def _one_phase_reference(legged, K: int, names, rank: str) -> tuple:
    if K not in _PHASE_INPUTS:
        _PHASE_INPUTS[K] = phase_inputs(legged, K, 23, seed=K)
    contacts, R, p, R0, b = _PHASE_INPUTS[K]
    rows = np.random.default_rng(K).permutation(23)[:13]
    points = [i for i, c in enumerate(contacts) if c.name in names and c.kind == "point"]
    if len(points) >= 3:
        X = p[rows][:, points, 0] - p[rows][:, points, 0].mean(axis=1, keepdims=True)
        sv = np.linalg.svd(X, compute_uv=False)
        rows = rows[sv[:, 1] >= 0.1 * sv[:, 0]]
        assert len(rows) >= 4
    return share_reference(contacts, R, p, R0, b, names, rank, rows)


#: numpy's side of test_the_highest_order_matches_numpy by order: the motion (its 23 orders),
#: the frames and each phase's share, ~0.5 s of the ~0.7 s a kernel variant took; the same for
#: every variant (the kernel's highest order is one), computed once a worker
_HIGHEST: dict[int, tuple] = {}


def _highest_reference(legged, K: int) -> tuple:
    text, model, contacts = legged
    if K not in _HIGHEST:
        traj = floating_motion(text, model, np.linspace(0, 1, 5), K + 1, seed=K)[0]
        numpy_backend = backends.load("numpy")
        R, p = numpy_backend.contact_frames(model, numpy_backend.data(model), traj.derivatives,
                                            contacts, K)
        R0 = jets.rotation(traj.base.R, traj.base.Vb[..., :3], K, body=True)
        b = np.random.default_rng(K).normal(size=(5, K + 1, 6))
        shares = [share_reference(contacts, R, p, R0, b, names, rank, np.arange(5))
                  for names, rank in PHASES]
        _HIGHEST[K] = traj, R, p, shares
    return _HIGHEST[K]


def test_the_highest_order_matches_numpy(legged, kernel):
    """Every phase, and the frames, at the kernel's highest order (22)."""
    _, model, contacts = legged
    K = kernel.max_order
    traj, R, p, shares = _highest_reference(legged, K)
    for a, r in zip(kernel.contact_frames(model, kernel.data(model), traj.derivatives, contacts, K), (R, p),
                    strict=True):
        close(a, r, axis=2)
    for args, ref, scale in shares:
        close_share(kernel.contact_share(*args), ref, scale)


def test_two_points_at_one_place_give_nan_as_numpy(legged, kernel):
    """The line through them has no direction: u u^T / (u^T u) divides by zero."""
    contacts, R, p, R0, b = phase_inputs(legged, 2, 7, seed=5)
    p = p.copy()
    p[:, 3] = p[:, 1]   # p3 where p1 is
    with np.errstate(all="ignore"):
        ours, ref, scale = share_both(kernel, contacts, R, p, R0, b, ("p1", "p3"), "line",
                                      np.arange(7))
    assert np.isnan(ref[0]).all()
    close_share(ours, ref, scale)


def test_a_base_wrench_with_nan_gives_nan_where_numpy_does(legged, kernel):
    contacts, R, p, R0, b = phase_inputs(legged, 1, 9, seed=6)
    b = b.copy()
    b[4, 1, 3] = np.nan
    for names, rank in PHASES[:5]:
        ours, ref, scale = share_both(kernel, contacts, R, p, R0, b, names, rank, np.arange(9))
        assert np.isnan(ref[0][4, 1]).any() and not np.isnan(ref[0][3]).any()
        close_share(ours, ref, scale)


def test_points_exactly_on_a_line_as_a_full_set_are_numpys_singular_matrix(kernel):
    """Four points at x = -3, -1, 1, 3, the root unturned, unit weights (integer arithmetic:
    G_ff = 4 I, S = diag(0, 20, 20) exactly): the kernel's determinant is zero and the phase
    runs as numpy's, which raises."""
    N, K1 = 3, 2
    R, p = np.zeros((N, 4, K1, 3, 3)), np.zeros((N, 4, K1, 3))
    R[:, :, 0] = np.eye(3)
    p[:, :, 0, 0] = [-3.0, -1.0, 1.0, 3.0]
    b = np.arange(N * K1 * 6, dtype=float).reshape(N, K1, 6)
    args = (R, p, R[:, 0], np.ones(4, bool), np.arange(4), np.arange(N), np.eye(12), b, "full")
    for backend in (kernel, backends.load("numpy")):
        with pytest.raises(np.linalg.LinAlgError):
            backend.contact_share(*args)


def test_orders_beyond_the_kernel_are_numpys(legged, kernel):
    contacts, R, p, R0, b = phase_inputs(legged, 0, 3, seed=8)
    more = kernel.max_order + 1   # derivative orders the kernel does not take
    rng = np.random.default_rng(9)

    def extend(x, axis):
        shape = list(x.shape)
        shape[axis] = more
        return np.concatenate([x, 1e-3 * rng.normal(size=shape)], axis=axis)

    R, p, R0, b = extend(R, 2), extend(p, 2), extend(R0, 1), extend(b, 1)
    ours, ref, _ = share_both(kernel, contacts, R, p, R0, b, ("s0", "p2"), "full", np.arange(3))
    for a, r in zip(ours, ref, strict=True):
        assert np.array_equal(a, r)


@pytest.mark.parametrize("K", [0, 1, 3])
def test_on_contacts_matches_numpy(legged, kernel, K):
    """Phases of every kind in turn (the air, one point, two, four, a sole with points, two
    soles): the contact wrenches, the torques with them and the base wrench left over."""
    text, model, contacts = legged
    names = [c.name for c in contacts]
    cycle = [(), ("p2",), ("p1", "p3"), ("p0", "p1", "p2", "p3"), ("s1", "p2", "p3"),
             ("s0", "s1")]
    N = 4 * len(cycle) + 1
    traj = floating_motion(text, model, np.linspace(0, 1, N), K + 2, seed=K)[0]
    active = np.array([[n in cycle[s % len(cycle)] for n in names] for s in range(N)])
    ours = on_contacts(model, traj, contacts, active=active, order=K)
    with backends.use("numpy"):
        ref = on_contacts(model, traj, contacts, active=active, order=K)
    for name in ref.wrenches:
        close(ours.wrenches[name], ref.wrenches[name], axis=1)
    close(ours.tau, ref.tau, axis=1, tol=1e-11)
    close(ours.W, ref.W, axis=1, tol=1e-11)   # its largest: where no contact is down
