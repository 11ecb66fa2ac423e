"""Array backends (`xp` namespaces) and heavy kernel helpers shared by several ops."""
