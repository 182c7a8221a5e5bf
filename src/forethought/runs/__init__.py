"""Durable runs, one owner per module: ``recording`` (execute with every event in a store),
``leases`` (one process drives a run), ``run_ids`` (prefix lookup), ``review`` (a human's word on
interrupted steps), ``approval`` (granting approvals of a stored run, the gate from the record),
``resume`` and ``replay``; ``store`` holds the store itself and the recorder."""
