"""Op database entries for sampan/ops/cumulative.py."""
ENTRIES: list = []
