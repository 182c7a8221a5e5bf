"""The `forethought` command line: thin commands over the public API."""
