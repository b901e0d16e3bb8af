"""Proof of the numbers: validation of computed torques (finite differences, the methods
against each other, the data's own consistency, the model) and forward simulation. Imports:
every other subpackage of the algorithms."""
