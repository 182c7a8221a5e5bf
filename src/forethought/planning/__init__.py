"""Planning: goal → plan. The planner, its prompt and grammar, streaming, and plan memory."""
