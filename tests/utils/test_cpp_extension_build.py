"""paddle.utils.cpp_extension builds: the compiler's errors, no compiler, the build cache,
setup/CppExtension and CUDAExtension."""
from __future__ import annotations

import os
import shutil
import sys

import numpy as np
import pytest

import sampan as paddle
from sampan.ops.custom_op import unregister_custom_ops
from sampan.utils import cpp_extension

pytestmark = pytest.mark.skipif(shutil.which("c++") is None and shutil.which("g++") is None,
                                reason="no C++ compiler")

_SQUARE = r"""
#include "paddle/extension.h"

std::vector<paddle::Tensor> SquareForward(const paddle::Tensor& x, float scale) {
  auto out = paddle::empty(x.shape(), x.dtype());
  PD_DISPATCH_FLOATING_TYPES(x.type(), "square", ([&] {
    for (int64_t i = 0; i < x.numel(); ++i)
      out.data<data_t>()[i] = static_cast<data_t>(scale) * x.data<data_t>()[i] * x.data<data_t>()[i];
  }));
  return {out};
}

PD_BUILD_OP(sampan_test_square)
    .Inputs({"X"})
    .Outputs({"Out"})
    .Attrs({"scale: float"})
    .SetKernelFn(PD_KERNEL(SquareForward));
"""


@pytest.fixture
def square_src(tmp_path):
    path = tmp_path / "square.cc"
    path.write_text(_SQUARE)
    yield str(path)
    unregister_custom_ops(["sampan_test_square"])


def test_compile_error_carries_the_compiler_lines(tmp_path):
    bad = tmp_path / "bad.cc"
    bad.write_text('#include "paddle/extension.h"\nint f() { return undeclared_thing; }\n')
    with pytest.raises(RuntimeError) as info:
        cpp_extension.load("bad_op", [str(bad)], build_directory=str(tmp_path / "b"))
    text = str(info.value)
    assert "compiling custom op 'bad_op' failed" in text
    assert "bad.cc:2" in text and "undeclared_thing" in text and "error" in text


def test_no_compiler_is_a_clear_error(square_src, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("CXX", raising=False)
    with pytest.raises(RuntimeError, match="no C.. compiler found .*c\\+\\+, g\\+\\+"):
        cpp_extension.load("sq", [square_src], build_directory=str(tmp_path / "b"))


def test_missing_source_and_cuda_are_rejected(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.cc"):
        cpp_extension.load("x_op", [str(tmp_path / "nope.cc")])
    with pytest.raises(RuntimeError, match="CUDAExtension.*CppExtension"):
        cpp_extension.CUDAExtension(sources=["a.cu"])
    with pytest.raises(ValueError, match="name must be a Python identifier"):
        cpp_extension.load("bad-name", ["a.cc"])


def test_load_creates_build_dir_and_caches(square_src, tmp_path):
    build = tmp_path / "deep" / "build"
    mod = cpp_extension.load("sq", [square_src], build_directory=str(build))
    libs = [f for f in os.listdir(build) if f.endswith(".so")]
    assert len(libs) == 1
    stamp = os.stat(build / libs[0]).st_mtime_ns
    again = cpp_extension.load("sq", [square_src], build_directory=str(build))
    assert again.__file__ == mod.__file__
    assert os.stat(build / libs[0]).st_mtime_ns == stamp   # not rebuilt
    x = paddle.to_tensor(np.array([1.0, -2.0, 3.0], "float32"))
    np.testing.assert_allclose(again.sampan_test_square(x, scale=0.5).numpy(),
                               [0.5, 2.0, 4.5])
    # no grad op: the output does not require grad
    x.stop_gradient = False
    assert mod.sampan_test_square(x, scale=1.0).stop_gradient


def test_setup_builds_module_file(square_src, tmp_path, monkeypatch):
    ext = cpp_extension.CppExtension(sources=[square_src],
                                     extra_compile_args={"cxx": ["-DSAMPAN_TEST_SETUP"]})
    out = tmp_path / "out"
    mod = cpp_extension.setup(name="sq_setup", ext_modules=[ext], build_directory=str(out))
    assert (out / "sq_setup.py").exists()
    x = paddle.to_tensor(np.array([2.0], "float64"))
    np.testing.assert_allclose(mod.sampan_test_square(x, scale=3.0).numpy(), [12.0])
    monkeypatch.syspath_prepend(str(out))
    monkeypatch.delitem(sys.modules, "sq_setup", raising=False)
    import sq_setup
    np.testing.assert_allclose(sq_setup.sampan_test_square(x, scale=1.0).numpy(), [4.0])
    with pytest.raises(TypeError, match="CppExtension"):
        cpp_extension.setup(name="z", ext_modules=["a.cc"])
