"""Dream engines: the offline heuristic one and the LLM ones, behind one event-stream contract."""
