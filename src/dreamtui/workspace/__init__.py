"""The workspace: its config, where its files live, and scaffolding a new one."""
