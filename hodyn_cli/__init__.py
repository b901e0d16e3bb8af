"""hodyn: joint torques of a prescribed motion and their time derivatives.

The library is layered so that dependencies point one way::

    lie  <-  model  <-  urdf
    trajectory  <-  io
    {lie, model, trajectory}  <-  methods/  <-  validate  <-  cli/

The command line (``hodyn_cli.cli``) is a thin layer over this library; nothing
here imports typer or rich.
"""

__version__ = "0.1.0"
