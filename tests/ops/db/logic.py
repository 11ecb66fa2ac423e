"""Op database entries for sampan/ops/logic.py."""
ENTRIES: list = []
