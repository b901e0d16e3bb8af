"""Motion: link kinematics, centre of mass and momentum, inverse kinematics, and the
estimation of missing derivatives from samples. Imports: backends, dynamics."""
