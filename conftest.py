"""The test session's set-up: one BLAS thread per process, the library's bytecode, and the
collection of the library's doctests (the GPU backend's modules' run from
tests/test_gpu_backend.py where JAX is: the gpu extra, in the test extra too, which the
lowest-bounds environment of .ci/run does not install)."""

import os
import sys

import pytest

# One BLAS thread per process, as the command line has (hodyn_cli/cli/__init__.py): the suite
# runs a worker per core (-n auto), and OpenBLAS's own threads would wait spinning for cores
# the other workers hold (tests/test_identify.py and tests/test_base_parameters.py: 31 s of
# CPU with them, 6 s without, on 2 cores). Set before NumPy loads OpenBLAS: this file is
# read before any test module, and the workers and the commands the tests start inherit it.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

# The GPU backend's modules' doctests run from tests/test_gpu_backend.py (where JAX is
# installed), not collected here: collecting jax_passes.py imports JAX (~1 s of CPU), in
# every worker of ``pytest -n``, where only the one that runs the GPU tests needs it
collect_ignore = ["hodyn_cli/algorithms/backends/gpu.py",
                  "hodyn_cli/algorithms/backends/jax_passes.py"]


def pytest_configure(config):
    """The library's bytecode written once, before the workers start: hundreds of tests run
    the command line in a subprocess, and where the environment says not to write bytecode
    (PYTHONDONTWRITEBYTECODE, as some CI machines set it) each of them compiled the modules it
    imports again (~0.12 s of CPU a command). Only what changed since is compiled."""
    if hasattr(config, "workerinput"):  # (a pytest-xdist worker: the controller did it)
        return
    import compileall
    from pathlib import Path

    compileall.compile_dir(Path(__file__).parent / "hodyn_cli", quiet=2)


@pytest.hookimpl(wrapper=True)
def pytest_collection(session):
    """The test modules' assertions rewritten once, not at every run in every worker: pytest
    keeps a module's rewritten code in its __pycache__ only where bytecode is written, and
    where the environment says not to (PYTHONDONTWRITEBYTECODE) each worker rewrote all ~200
    test modules at every run (12-25 s of CPU a worker: a third of the collection's). Only
    while collecting: the rest of the run writes what the environment says."""
    written = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    try:
        return (yield)
    finally:
        sys.dont_write_bytecode = written
