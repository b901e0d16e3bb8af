"""Parameter identification on arrays: the regressor rows stacked into per-joint triangular
factors (:mod:`.least_squares`: weighted least squares on the base parameters, standard
errors, condition number) and the physically consistent full parameters (:mod:`.consistent`:
every body's pseudo-inertia positive definite, log-Cholesky). Imports: none of the other
subpackages: arrays in, arrays out."""
