"""Who computes (:mod:`hodyn_cli.algorithms.backends`): chosen once per process, described in
one line (``hodyn --version``) or for reports."""

from __future__ import annotations

from typing import Any

from hodyn_cli.core.model import Model

__all__ = ["use_backend", "backend", "backend_info", "backend_data", "backend_runs"]


def use_backend(name: str | None = None) -> str:
    """Choose who computes, for the rest of the process: ``numpy`` (the reference),
    ``compiled`` (the C kernels) or another registered backend (``None``: the default, the
    compiled kernel where it runs); returns the one line :func:`backend` gives. A backend that
    cannot run here is a one-line :class:`~hodyn_cli.errors.HodynError`."""
    from hodyn_cli.algorithms import backends

    backends.select(name)
    return backend()


def backend() -> str:
    """The backend that runs, in one line (e.g. ``compiled kernel avx512, AVX-512, 8 lanes``;
    numpy with why, where the compiled kernel does not run).

    >>> backend().startswith(("compiled kernel", "numpy"))
    True
    """
    from hodyn_cli.algorithms import backends

    return backends.describe()


def backend_info() -> dict:
    """The backend that runs, for reports: ``backend``, ``variant``, ``isa``, ``lanes`` and
    ``reason`` (why numpy runs, where nobody chose it; '' otherwise), and ``fallback``: that
    reason only where nobody asked for numpy (None otherwise)."""
    from hodyn_cli.algorithms import backends

    return backends.info() | {"fallback": backends.fallback()}


def backend_data(robot: Model) -> Any:
    """What the backend that runs derives from ``robot`` (its Data: the constants, the
    compiled kernel's struct, the model on a GPU): made once per request by its caller (a
    pipeline's job holds it) and given as ``data=`` to the computations on that robot, so
    they derive none of it again; it lives as long as the caller keeps it."""
    from hodyn_cli.algorithms import backends

    return backends.current().data(robot)


def backend_runs() -> dict[str, str]:
    """Who computes each operation of the backend that runs: operation -> the backend that
    runs it (itself, or the one it leaves it to: numpy's reference where the compiled kernel
    has no entry point, the CPU backend's for a GPU's).

    >>> runs = backend_runs()
    >>> runs["inverse_dynamics"] in ("compiled", "numpy", "gpu"), runs["ik_newton"] != "gpu"
    (True, True)
    """
    from hodyn_cli.algorithms import backends

    return backends.runs()
