"""Designed motions: generated excitation and point-to-point motions with exact derivatives,
inside the limits. Imports: dynamics, motion, actuation, limits."""
