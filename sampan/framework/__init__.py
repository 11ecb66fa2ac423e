"""Framework core: dtypes, places, random generator, flags/state, Tensor data, the tape node.

Imports no op; every other room may import it.
"""
