"""One module per op family, each with a list ENTRIES of OpEntry."""
