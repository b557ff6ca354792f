"""The agentic text-to-SQL evaluation: question sets, the SQL sandbox, the agent loop, judges."""
