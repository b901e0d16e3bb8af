"""The ``hodyn`` command line: a thin layer of typer commands over the library."""
