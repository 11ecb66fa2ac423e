"""dump_backward_graph_path (Paddle 3.3.1): the graph is written as DOT before the pass.
Paddle 3.3.1 writes for (x * x).sum() nodes SumGradNode -> MultiplyGradNode -> (twice)
GradNodeAccumulation, edges labelled 'Place(cpu)\\nfloat32[2]'."""
import os

import pytest

import sampan as paddle


def _read_dot(path):
    files = os.listdir(path)
    assert len(files) == 1 and files[0].endswith("_backward_graph.dot")
    return open(os.path.join(path, files[0])).read()


def _edges(text):
    names = {}
    for line in text.splitlines():
        if "[label=" in line and "->" not in line:
            key, rest = line.strip().split("[label=")
            names[key] = rest.split('"')[1]
    return sorted((names[a], names[b.split("[")[0]], b.split('"')[1])
                  for a, b in (ln.strip().split("->") for ln in text.splitlines() if "->" in ln))


def test_tensor_backward_dump(tmp_path):
    x = paddle.to_tensor([1., 2.], stop_gradient=False)
    (x * x).sum().backward(dump_backward_graph_path=str(tmp_path / "g"))
    assert x.grad.tolist() == [2., 4.]
    text = _read_dot(tmp_path / "g")
    assert text.startswith("digraph G {") and text.rstrip().endswith("} // end G")
    lab = "Place(cpu)\\nfloat32[2]"
    assert _edges(text) == [("MultiplyGradNode", "GradNodeAccumulation", lab)] * 2 + \
        [("SumGradNode", "MultiplyGradNode", lab)]


def test_grad_and_autograd_backward_dump(tmp_path):
    x = paddle.to_tensor([[1., 2.]], stop_gradient=False)
    y = paddle.matmul(x, paddle.ones([2, 3])).exp().mean()
    (g,) = paddle.grad(y, x, dump_backward_graph_path=str(tmp_path / "a"))
    assert g.shape == [1, 2]
    nodes = [e[0] for e in _edges(_read_dot(tmp_path / "a"))]
    assert nodes == ["ExpGradNode", "MatmulGradNode", "MeanGradNode"]
    z = (x * 3).sum()
    paddle.autograd.backward([z], dump_backward_graph_path=str(tmp_path / "b"))
    assert x.grad.tolist() == [[3., 3.]]
    assert ("ScaleGradNode" in _read_dot(tmp_path / "b")
            or "MultiplyGradNode" in _read_dot(tmp_path / "b"))


def test_bad_path_type():
    x = paddle.to_tensor([1.], stop_gradient=False)
    with pytest.raises(TypeError, match="Tensor.backward: dump_backward_graph_path must be a "
                                        "str path, got int"):
        (x * 2).sum().backward(dump_backward_graph_path=3)
