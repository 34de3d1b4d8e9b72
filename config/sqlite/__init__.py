"""SQLite for the embedded default, with its writers queued fairly in the process (base.py)."""
