"""Op database entries for sampan/ops/linalg.py."""
ENTRIES: list = []
