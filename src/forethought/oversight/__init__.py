"""Oversight: the one approval policy, signed approvals, budgets, checks on results, redaction."""
