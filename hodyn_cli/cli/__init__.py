"""The command line (typer): parse, call the library, render. Nothing else in the package
imports it.

hodyn runs its own threads over chunks of samples (``--jobs``); BLAS libraries' threads on
top of them only contend for the same cores (on 2 cores OpenBLAS's spinning workers made the
sensitivities 1.4x slower and the rest ~10-30 %). So the command line uses one BLAS thread
unless the environment says otherwise. Set here, before numpy is first imported.
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
