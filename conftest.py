"""Collection of the library's doctests: the GPU backend's modules need JAX (the gpu extra,
in the test extra too), which the lowest-bounds environment of .ci/run does not install."""

import importlib.util

collect_ignore = [] if importlib.util.find_spec("jax") else [
    "hodyn_cli/algorithms/backends/gpu.py", "hodyn_cli/algorithms/backends/jax_passes.py"]
