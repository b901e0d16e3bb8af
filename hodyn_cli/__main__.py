"""``python -m hodyn_cli`` runs the command line."""

from hodyn_cli.cli.app import main

main()
