"""Op database entries for sampan/ops/creation.py."""
ENTRIES: list = []
