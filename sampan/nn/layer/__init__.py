"""Layer classes: the base Layer, containers and one module per family."""
