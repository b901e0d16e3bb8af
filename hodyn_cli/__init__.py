"""hodyn: joint torques of a prescribed motion and their time derivatives.

The library is layered so that dependencies point one way::

    lie  <-  model  <-  {model_cache, urdf, drives}
    trajectory  <-  {io/, estimate}
    {lie, model, trajectory}  <-  methods/  <-  {kinematics, elastic, validate  <-  report}
    {io/, methods/, kinematics, elastic}  <-  jobs;  stream  <-  batch
    everything  <-  cli/

The command line (``hodyn_cli.cli``) is a thin layer over this library; nothing
here imports typer or rich.
"""

__version__ = "0.1.0"
