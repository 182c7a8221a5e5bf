"""The plan artifact: frozen models, references, plan files, validation, graph and diff.

The bottom of the data flow: pure data and pure functions, no I/O beyond reading a plan file.
Every other stage depends on it; it depends on nothing in forethought but ``errors``.
"""
