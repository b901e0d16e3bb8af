"""The default gravity (m/s^2, root/world frame): what every command assumes unless told."""

GRAVITY = (0.0, 0.0, -9.81)
