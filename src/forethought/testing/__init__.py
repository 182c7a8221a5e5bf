"""Test kits for code built on forethought, shipped with the package so other backends can use them.

- ``forethought.testing.store_conformance``: the suite every ``Store`` backend must pass
  (subclass ``StoreConformance`` and give it a ``new_store`` fixture).
- ``forethought.testing.runs``: builders for plausible runs' events.
- ``forethought.testing.postgres``: a throwaway schema on a test PostgreSQL server.

These modules import pytest (and the conformance suite hypothesis): install them with your tests.
"""
