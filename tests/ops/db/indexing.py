"""Op database entries for sampan/ops/indexing.py."""
ENTRIES: list = []
