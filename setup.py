"""Build the optional compiled kernel of the body-fixed method (metadata: pyproject.toml).

``optional=True``: where no C compiler is available the install still succeeds and hodyn
uses its numpy implementation (slower, same numbers).
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("hodyn_cli.algorithms.methods._kernel", ["hodyn_cli/algorithms/methods/_kernel.c"],
                             optional=True, extra_compile_args=["-O3"])])
