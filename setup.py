"""Build the optional compiled kernels (metadata: pyproject.toml).

The C sources in hodyn_cli/algorithms/backends/csrc are built once per instruction set, each
as its own library with its own lane width (kernel.h): ``_kernel`` (2 lanes, the portable
baseline every x86-64 and aarch64 CPU runs) and, on x86-64, ``_kernel_avx2`` (4 lanes, AVX2 +
FMA) and ``_kernel_avx512`` (8 lanes, AVX-512F). hodyn_cli/algorithms/backends/compiled.py
loads the widest one the CPU runs. ``optional=True``: where no C compiler (or no support for
an instruction set) is available the install still succeeds, with fewer variants or none
(hodyn then uses its numpy implementation: slower, same numbers). The build also parses the
kernels' header into ``_abi_table.py`` beside them (backends/abi.py: a start then reads no
header).
"""

import importlib.util
import os
import platform
import sys
from glob import glob
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCES = sorted(glob("hodyn_cli/algorithms/backends/csrc/*.c"))
HEADERS = sorted(glob("hodyn_cli/algorithms/backends/csrc/*.h"))
ABI_PY = "hodyn_cli/algorithms/backends/abi.py"

#: module name -> (lanes, compiler flags)
VARIANTS = {"_kernel": (2, [])}
if platform.machine().lower() in ("x86_64", "amd64"):
    VARIANTS |= {"_kernel_avx2": (4, ["-mavx2", "-mfma"]),
                 "_kernel_avx512": (8, ["-mavx512f"])}


class BuildPerVariant(build_ext):
    """Object files of each variant in their own directory (the same sources, other flags);
    the header's table (abi.write_table) where the kernels go, built or not."""

    def run(self):
        super().run()
        # abi.py by its path: the package's __init__ imports numpy, which the build lacks
        spec = importlib.util.spec_from_file_location("hodyn_abi", ABI_PY)
        abi = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = abi   # (its dataclass looks its module up there)
        spec.loader.exec_module(abi)
        folder = Path(self.get_ext_fullpath(next(iter(self.extensions)).name)).parent
        folder.mkdir(parents=True, exist_ok=True)
        abi.write_table(Path("hodyn_cli/algorithms/backends/csrc/hodyn.h"), folder)

    def build_extension(self, ext):
        temp = self.build_temp
        self.build_temp = os.path.join(temp, ext.name)
        try:
            super().build_extension(ext)
        finally:
            self.build_temp = temp


setup(
    ext_modules=[Extension(f"hodyn_cli.algorithms.backends.{name}", SOURCES, depends=HEADERS,
                           optional=True, define_macros=[("LANES", str(lanes)), ("HODYN_MODULE", name)],
                           extra_compile_args=["-O3", "-fno-math-errno", *flags])
                 for name, (lanes, flags) in VARIANTS.items()],
    cmdclass={"build_ext": BuildPerVariant},
)
