"""pytest configuration: the op database modules hold data, not tests (and are imported by
tests/ops/op_db.py), so doctest collection must not import them on its own."""
collect_ignore = ["ops/db"]
