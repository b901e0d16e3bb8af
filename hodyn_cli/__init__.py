"""hodyn: joint torques of a prescribed motion and their time derivatives.

The library is layered so that dependencies point one way::

    lie  <-  model  <-  {model_cache, urdf, drives, locking, mimic}
    trajectory  <-  {io/, estimate}
    {lie, model, trajectory}  <-  methods/  <-  {kinematics, elastic, validate  <-  report}
    methods/  <-  ik  <-  io/motion
    {io/, methods/, kinematics, elastic, regressor, sensitivities, ik}  <-  jobs  <-  api
    stream  <-  batch;  everything  <-  cli/

The command line (``hodyn_cli.cli``) is a thin layer over this library; nothing
here imports typer or rich. The Python API (:mod:`hodyn_cli.api`, docs/python.md) is
available at the top: ``hodyn_cli.load_robot``, ``hodyn_cli.inverse_dynamics``, ``forward_kinematics``,
``matrices``, ``validate_motion``, ``elastic_dynamics``, ``dynamic_regressor``,
``torque_sensitivities``, ``inverse_kinematics``
(imported on first use, so ``import hodyn_cli`` stays fast).
"""

__version__ = "0.1.0"

# (named unlike the modules, so that ``from hodyn_cli import validate`` stays the module)
_API = ("Result", "load_robot", "inverse_dynamics", "forward_kinematics", "matrices",
        "validate_motion", "elastic_dynamics", "dynamic_regressor", "torque_sensitivities",
        "joint_trajectory", "inverse_kinematics")
__all__ = ["__version__", *_API]


def __getattr__(name: str):
    if name in _API:
        from hodyn_cli import api

        return getattr(api, name)
    raise AttributeError(f"module 'hodyn_cli' has no attribute '{name}'")
