"""paddle.save(program) / paddle.load: a Program is written as its serialized form (not a
pickle) and read back as a Program, as docs/guides/beginner/model_save_load_cn.ipynb does."""
import io

import numpy as np
import pytest

import sampan as paddle
from tests.static_util import static_guard


def _build():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data(name="x", shape=[None, 4], dtype="float32")
        y = paddle.static.nn.fc(x, 3)
    return main, startup, y


def test_save_load_program_file_roundtrip(tmp_path):
    main, startup, y = _build()
    path = str(tmp_path / "sub" / "model.pdmodel")
    paddle.save(main, path)
    assert open(path, "rb").read(1) == b"{"  # text, not a pickle
    prog = paddle.load(path)
    assert isinstance(prog, paddle.static.Program)
    assert [op.type for op in prog.global_block().ops] == \
        [op.type for op in main.global_block().ops]
    names = sorted(v.name for v in prog.all_parameters())
    assert len(names) == 2 and names == sorted(v.name for v in main.all_parameters())


def test_loaded_program_runs_with_saved_params(tmp_path):
    main, startup, y = _build()
    paddle.enable_static()
    try:
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        feed = {"x": np.arange(8, dtype=np.float32).reshape(2, 4)}
        ref, = exe.run(main, feed=feed, fetch_list=[y])
        paddle.save(main.state_dict(), str(tmp_path / "m.pdparams"))
        paddle.save(main, str(tmp_path / "m.pdmodel"))
        prog = paddle.load(str(tmp_path / "m.pdmodel"))
        prog.set_state_dict(paddle.load(str(tmp_path / "m.pdparams")))
        out, = exe.run(prog, feed=feed, fetch_list=[y.name])
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(out, ref, rtol=1e-6)


def test_save_load_program_buffer_and_pickles_still_load():
    main, _, _ = _build()
    buf = io.BytesIO()
    paddle.save(main, buf)
    buf.seek(0)
    assert isinstance(paddle.load(buf), paddle.static.Program)
    buf = io.BytesIO()
    paddle.save({"a": paddle.ones([2])}, buf)
    buf.seek(0)
    assert paddle.load(buf)["a"].tolist() == [1.0, 1.0]


def test_py_func_program_refused(tmp_path):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data(name="x", shape=[2], dtype="float32")
        out = main.current_block().create_var(name="o", shape=[2], dtype="float32")
        paddle.static.py_func(func=lambda a: a, x=x, out=out)
    with pytest.raises(ValueError, match="py_func"):
        paddle.save(main, str(tmp_path / "p.pdmodel"))
