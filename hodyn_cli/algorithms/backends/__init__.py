"""Who computes the per-chunk operations: the compiled kernels (``csrc/``) or the numpy
reference. Imports: core, modeling, errors (and the reference passes of
:mod:`hodyn_cli.algorithms.dynamics` it stands for)."""
