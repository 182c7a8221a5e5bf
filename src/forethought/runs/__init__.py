"""Durable runs: the store, the recorder, leases, recorded execution, resume and replay."""
