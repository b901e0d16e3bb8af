"""Designed motions: generated excitation and point-to-point motions with exact derivatives,
inside the limits, and the excitation motions of identification. Imports: backends (the Data of
a request), dynamics, motion, actuation, limits, identification."""
