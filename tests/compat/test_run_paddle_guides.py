"""tools/run_paddle_guides.py: code cells from markdown / rst / notebook pages, the shared
edits, one program per page run on sampan (with the dataset substitutes), and the per-cell
comparison rules."""
import importlib.util
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "run_paddle_guides.py")
sys.path.insert(0, os.path.dirname(TOOL))
spec = importlib.util.spec_from_file_location("run_paddle_guides", TOOL)
guides = importlib.util.module_from_spec(spec)
spec.loader.exec_module(guides)

MD = """# Title
```python
import paddle
model.fit(data, epochs=5)
```
text
```bash
pip install paddle
```
```python
>>> a = paddle.ones([2])
>>> a
Tensor(...)
```
"""
RST = """Intro

.. code:: ipython3

    x = 1
    print(x)


.. parsed-literal::

    1

.. code-block:: python

    !wget http://x
    y = resnet(pretrained=True)
"""


def test_markdown_cells_edits_and_doctest_blocks():
    cells = guides.cells_of("page.md", MD)
    assert cells[0] == "import paddle\nmodel.fit(data, epochs=1)\n"
    assert cells[1].startswith(guides.INTERACTIVE)
    assert "a = paddle.ones([2])\na\n" in cells[1] and "Tensor(...)" not in cells[1]
    assert len(cells) == 2  # the bash block is not Python


def test_rst_and_notebook_cells():
    assert guides.cells_of("p.rst", RST) == ["x = 1\nprint(x)\n",
                                             "\ny = resnet(pretrained=False)\n"]
    nb = {"cells": [{"cell_type": "markdown", "source": ["x"]},
                    {"cell_type": "code", "source": ["EPOCH_NUM = 10\n", "max_epoch = 3"]}]}
    assert guides.cells_of("n.ipynb", json.dumps(nb)) == ["EPOCH_NUM = 1\nmax_epoch = 1"]


def test_run_page_on_sampan(tmp_path):
    entry = {"page": "p.ipynb", "notebook": True, "cells": [
        "import paddle\nds = paddle.vision.datasets.MNIST(mode='test')\nlen(ds)",
        "raise ValueError('boom')",
        "print(paddle.to_tensor([1.0, 2.0]).sum().item())"]}
    res = guides.run_page("sampan", "p", entry, str(tmp_path), 240, sys.executable)
    assert [c.split("\n", 1)[1].strip() for c in res["cells"]][0] == "100"
    assert guides._error(res["cells"][1]) == "ValueError: boom"
    assert res["cells"][2].split("\n")[1] == "3.0"
    assert len(res["cell_seconds"]) == 3


def test_compare_rules():
    c = guides.compare_cell
    assert c("", "0\nloss: 1.0 - 12ms/step\n", "0\nloss: 1.0 - 310us/step\n") == "ok"
    assert c("", "0\nx 1.0\n", "0\nx 1.5\n") == "values"
    assert c("x = paddle.rand([2])", "0\nx 1.0\n", "0\nx 1.5\n") == "random"
    assert c("", "0\n[1, 2]\n", "0\n(1, 2)\n") == "format"
    assert c("", "0\n\n@@ERROR@@KeyError: a\n", "0\n\n@@ERROR@@KeyError: b\n") == "ok"
    assert c("", "0\nfine\n", "0\n\n@@ERROR@@TypeError: x\n") == "error"
    assert c("", "0\n\n@@ERROR@@OSError: gpu\n", "0\nfine\n") == "paddle-error"
    bar = "0\nstep 1/2 [==>..] - 5ms/step\b\b\b\b\nstep 2/2 [=====] - 4ms/step\n"
    assert c("", bar, "0\nstep 1/2 [==>..] - 1ms/step\nstep 2/2 [=====] - 2ms/step\n") == "ok"


def test_more_stand_ins_and_size_edits(tmp_path):
    cell = "epochs = 1\ninput_size = 4096\noutput_size = 4096\nnums_batch = 50\nbatch_size = 512\n"
    assert guides.cells_of("a.rst", ".. code-block:: python\n\n" + "\n".join(
        "    " + ln for ln in cell.splitlines()) + "\n") == [
        "epochs = 1\ninput_size = 256\noutput_size = 256\nnums_batch = 2\nbatch_size = 512\n"]
    entry = {"page": "p.ipynb", "notebook": False, "cells": [
        "import csv\nrows = list(csv.reader(open('jena_climate_2009_2016.csv')))\n"
        "print((len(rows) - 1, len(rows[0])), rows[0][0], rows[0][2])",
        "en, zh, _ = open('cmn.txt', encoding='utf-8').readline().split('\\t')\n"
        "print(en.split()[0] in ('I', 'You', 'He', 'She', 'We', 'They'))",
        "w, *v = open('glove.6B.100d.txt', encoding='utf-8').readline().split()\n"
        "print(w, len(v))"]}
    res = guides.run_page("sampan", "p", entry, str(tmp_path), 240, sys.executable)
    outs = [c.split("\n", 1)[1].strip() for c in res["cells"]]
    assert outs == ["(4000, 15) Date Time T (degC)", "True", "the 100"]  # csv: no pandas needed
