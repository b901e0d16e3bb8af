"""Contacts: a floating-base robot carried by its feet (and hands) instead of at its base: the
contact wrenches that carry the base wrench and their time derivatives, the joint torques with
them, and their friction-cone and centre-of-pressure margins. Imports: backends, dynamics,
motion."""
