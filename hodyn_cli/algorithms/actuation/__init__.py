"""Drives between motors and joints: elastic joints (motor angles and torques), rigid drives
(rotor reactions, motor torques, currents), friction. Imports: backends, dynamics."""
