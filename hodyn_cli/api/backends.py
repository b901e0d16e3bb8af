"""Who computes (:mod:`hodyn_cli.algorithms.backends`): chosen once per process, described in
one line (``hodyn --version``) or for reports."""

from __future__ import annotations

__all__ = ["use_backend", "backend", "backend_info"]


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
