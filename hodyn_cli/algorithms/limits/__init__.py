"""Limits: how every limited series (velocities, torques and their rates, motor quantities)
changes when a motion is played slower or faster, the check of a motion against its limits,
the uniform retiming onto them, and the time-optimal time law along the path within them; a
floating base's, on its contacts too (friction cones, soles). Imports: backends (the Data of
a request), dynamics, motion, actuation, contacts."""
