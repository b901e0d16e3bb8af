"""Inverse dynamics of any order by three independent methods (:mod:`.methods`: body-fixed,
spatial, closed-form), a floating root, the equations of motion (M, C, Cbar, g) and their
derivatives by time, state and parameters, the regressor, the sensitivities, the partials and
the forward dynamics. Imports: backends (and core, modeling, errors)."""
