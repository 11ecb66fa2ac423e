"""tools/run_paddle_docs.py: example extraction from docstrings, the forked runner on sampan,
and the classification of an example's outcome against Paddle's."""
import importlib.util
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "run_paddle_docs.py")
spec = importlib.util.spec_from_file_location("run_paddle_docs", TOOL)
docs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(docs)

DOC = '''Add two tensors.

    Examples:
        .. code-block:: python

            >>> import paddle
            >>> x = paddle.to_tensor([1.0, 2.0])

            >>> for v in [1, 2]:
            ...     print(v)
            1
            2

        .. code-block:: python

            >>> # doctest: +REQUIRES(env:GPU)
            >>> paddle.device.set_device('gpu')

        .. code-block:: python

            >>> print(x + 1)
    Returns:
        Tensor
'''


def test_examples_are_blocks_without_prompts_or_outputs():
    blocks = docs._examples(DOC)
    assert blocks == ["import paddle\nx = paddle.to_tensor([1.0, 2.0])\n"
                      "for v in [1, 2]:\n    print(v)\n", "print(x + 1)\n"]


def test_classify():
    ok = {"status": "ok"}
    same = docs.classify("print(x)", {**ok, "stdout": "Tensor([1.00000000, inf])"},
                         {**ok, "stdout": "Tensor([1.00000001,  inf])"})
    assert same == "ok"
    assert docs.classify("print(x)", {**ok, "stdout": "[1.0]"}, {**ok, "stdout": "[2.0]"}) \
        == "values"
    assert docs.classify("y = paddle.rand([2])", {**ok, "stdout": "[0.1]"},
                         {**ok, "stdout": "[0.7]"}) == "random"
    assert docs.classify("x", {**ok, "stdout": "paddle.Size([2])"},
                         {**ok, "stdout": "[2]"}) == "format"
    assert docs.classify("x", {**ok, "stdout": ""}, {"status": "TypeError: bad", "stdout": ""}) \
        == "error"
    assert docs.classify("x", {"status": "ValueError: a", "stdout": ""},
                         {"status": "ValueError: b", "stdout": ""}) == "ok"
    assert docs.classify("x", {"status": "ValueError: a", "stdout": ""},
                         {**ok, "stdout": ""}) == "paddle-error"


def test_run_on_sampan_forks_each_example(tmp_path):
    ex = tmp_path / "ex.json"
    ex.write_text(json.dumps({
        "paddle.add#0": "import paddle\nprint(paddle.to_tensor([1, 2]).shape)\n",
        "paddle.bad#0": "import paddle\npaddle.no_such_api()\n",
        "paddle.slow#0": "import time\ntime.sleep(30)\n"}))
    out = tmp_path / "sp.json"
    env = dict(os.environ, PYTHONPATH=ROOT)
    subprocess.run([sys.executable, TOOL, "run", "--lib", "sampan", "--examples", str(ex),
                    "--out", str(out), "--limit", "3"], check=True, env=env, timeout=120,
                   capture_output=True)
    got = json.loads(out.read_text())
    assert got["paddle.add#0"] == {"status": "ok", "stdout": "paddle.Size([2])\n"}
    assert got["paddle.bad#0"]["status"].startswith("AttributeError")
    assert got["paddle.slow#0"]["status"] == "timeout"
