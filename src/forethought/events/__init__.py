"""Everything that happens, as events: the tagged union of event kinds and the fold to run state.

Every stage emits or reads events (the executor emits them, the supervisor and the store read
them), so they sit at the bottom beside the plan rather than in ``runs``, which would put them
above the executor that produces them.
"""
