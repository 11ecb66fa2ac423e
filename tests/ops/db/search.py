"""Op database entries for sampan/ops/search.py."""
ENTRIES: list = []
