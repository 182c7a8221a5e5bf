"""Execution: the DAG scheduler, attempts, recovery (retry/replan/rollback), backends, agent steps."""
