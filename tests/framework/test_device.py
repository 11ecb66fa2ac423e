"""paddle.device and paddle.utils helpers."""
import pytest

import sampan as paddle


def test_device_queries():
    assert paddle.device.get_all_device_type() == []  # Paddle's CPU build: no device types
    assert paddle.device.get_device() == "cpu"
    assert not paddle.device.is_compiled_with_cuda()
    paddle.device.synchronize()
    with paddle.device.stream_guard(paddle.device.current_stream()):
        pass


def test_utils_try_import_and_require_version():
    assert paddle.utils.try_import("math").sqrt(4) == 2
    with pytest.raises(ImportError, match="pip install"):
        paddle.utils.try_import("no_such_module_xyz")
    paddle.utils.require_version("0.0.1")
    with pytest.raises(Exception, match="not in"):
        paddle.utils.require_version("99.0.0")


def test_deprecated_warns():
    @paddle.utils.deprecated(update_to="paddle.new_api", since="2.0")
    def old():
        return 1
    with pytest.warns(DeprecationWarning, match="paddle.new_api"):
        assert old() == 1
