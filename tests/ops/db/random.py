"""Op database entries for sampan/ops/random.py."""
ENTRIES: list = []
