"""The pipeline: what each command computes per chunk (:mod:`~hodyn_cli.pipeline.jobs`, on the
Python API), a command's checked input (:mod:`~hodyn_cli.pipeline.inputs`), the read ->
compute -> write loop (:mod:`~hodyn_cli.pipeline.stream`) with every stage of a chunk on the
threads (:mod:`~hodyn_cli.pipeline.parallel`), one file
(:mod:`~hodyn_cli.pipeline.files`) or many (:mod:`~hodyn_cli.pipeline.batch`, local threads or
Dask), validation reports (:mod:`~hodyn_cli.pipeline.report`).

Imports: everything but the command line.
"""
