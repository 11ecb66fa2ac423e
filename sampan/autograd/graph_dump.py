"""`dump_backward_graph_path` of Tensor.backward / paddle.grad / autograd.backward (Paddle 3.x):
before the backward pass, the graph reachable from the roots is written as Graphviz DOT to
`<path>/<timestamp>_backward_graph.dot` (Paddle's file name), one box per node named as
Paddle names grad nodes (`MultiplyGradNode`, `GradNodeAccumulation` for a leaf) and one
arrow per edge labelled with its place, dtype and shape. Imports `framework` only.
"""
from __future__ import annotations

import datetime
import os

import numpy as np

from ..framework import place as _place


def _grad_node_name(op) -> str:
    return "".join(part.capitalize() for part in op.name.split("_")) + "GradNode"


def _label(shape, dtype) -> str:
    return f"{_place.current_place()}\\n{np.dtype(dtype).name}{list(shape)}"


def dump_backward_graph(path, roots, api: str) -> str:
    """Write the DOT file for the graph behind `roots` into directory `path`; returns its
    file name."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{api}: dump_backward_graph_path must be a str path, got "
                        f"{type(path).__name__}")
    ids: dict = {}
    lines, edges_out = [], []
    stack = [t._node for t in roots if getattr(t, "_node", None) is not None]
    for node in stack:
        ids.setdefault(id(node), len(ids))
    while stack:
        node = stack.pop()
        src = ids[id(node)]
        lines.append(f'\tnode_{src}[label="{_grad_node_name(node.op)}" shape="box"]')
        for i, edge in enumerate(node.edges):
            if edge is None:
                continue
            if edge.__class__ is tuple:
                child, key = edge[0], id(edge[0])
                shape, dtype = child.out_meta[edge[1]]
            else:
                child, key = None, id(edge)
                shape, dtype = edge._data.shape, edge._data.dtype
            if key not in ids:
                ids[key] = len(ids)
                if child is not None:
                    stack.append(child)
                else:
                    lines.append(f'\tnode_{ids[key]}[label="GradNodeAccumulation" '
                                 f'shape="box"]')
            edges_out.append(f'\tnode_{src}->node_{ids[key]}[label="{_label(shape, dtype)}"]')
    os.makedirs(path, exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y-%m-%d_%H:%M:%S.%f")
    name = os.path.join(path, f"{stamp}_backward_graph.dot")
    with open(name, "w", encoding="utf-8") as f:
        f.write("digraph G {\n" + "\n".join(lines + edges_out) + "\n} // end G\n")
    return name
