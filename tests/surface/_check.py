"""Shared helpers of the tests/surface cases: run a snippet, encode and compare its result."""
import numpy as np

MODULES = ["cases_paddle", "cases_tensor", "cases_nn", "cases_misc"]


def run_snippet(paddle, code: str):
    """Execute `code` with `paddle` and `np` bound; return the value it assigned to `out`."""
    scope = {"paddle": paddle, "np": np}
    exec(compile(code, "<case>", "exec"), scope)
    return scope["out"]


def _dtype_name(dtype) -> str:
    return str(dtype).replace("paddle.", "").replace("VarType.", "").lower()


def encode(value, paddle):
    """Plain Python description of a case result: tensors by dtype/shape/values/stop_gradient."""
    if isinstance(value, (tuple, list)) and not isinstance(value, str):
        return [encode(v, paddle) for v in value]
    if isinstance(value, paddle.Tensor):
        arr = np.asarray(value.numpy())
        return {"dtype": _dtype_name(value.dtype), "shape": list(value.shape),
                "values": arr.tolist(), "stop_gradient": bool(value.stop_gradient)}
    if isinstance(value, np.ndarray):
        return {"dtype": str(value.dtype), "shape": list(value.shape), "values": value.tolist()}
    if isinstance(value, (np.generic,)):
        return {"py": value.item()}
    return {"py": value}


def compare(expected, got, random: bool = False, rtol: float = 1e-5, atol: float = 1e-6,
            where: str = "out") -> None:
    """Assert `got` (an encoded sampan result) matches `expected` (encoded Paddle result)."""
    if isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), (where, expected, got)
        for k, (e, g) in enumerate(zip(expected, got)):
            compare(e, g, random, rtol, atol, f"{where}[{k}]")
        return
    if "py" in expected:
        e, g = expected["py"], got.get("py")
        if isinstance(e, float) and isinstance(g, (int, float)):
            assert np.isclose(g, e, rtol=rtol, atol=atol, equal_nan=True), (where, e, g)
        else:
            assert g == e, (where, e, g)
        return
    assert "dtype" in got, (where, "expected a tensor", got)
    assert got["dtype"] == expected["dtype"], (where, expected["dtype"], got["dtype"])
    assert got["shape"] == expected["shape"], (where, expected["shape"], got["shape"])
    if "stop_gradient" in expected:
        assert got.get("stop_gradient") == expected["stop_gradient"], (where, "stop_gradient")
    if random:
        return
    e, g = np.asarray(expected["values"]), np.asarray(got["values"])
    if e.dtype.kind in "fc" or g.dtype.kind in "fc":
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)
    else:
        np.testing.assert_array_equal(g, e, err_msg=where)


def params(cases) -> list:
    """pytest parameters for every case id of `cases`; ids in `cases.XFAIL` are strict xfails."""
    import pytest
    xfail = getattr(cases, "XFAIL", {})
    return [pytest.param(cid, marks=pytest.mark.xfail(strict=True, reason=xfail[cid]))
            if cid in xfail else cid for cid in sorted(cases.CASES)]


def check_case(paddle, cases, values, cid: str, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    """Run case `cid` of module `cases` on sampan and compare with Paddle's recorded result."""
    expected = values[cid]
    np.random.seed(0)
    paddle.seed(0)
    code = cases.PRE + cases.CASES[cid]
    if "error" in expected:
        try:
            run_snippet(paddle, code)
        except Exception as e:
            assert type(e).__name__ == expected["error"], (cid, expected["error"], repr(e))
            return
        raise AssertionError(f"{cid}: Paddle 3.3.1 raised {expected['error']}, sampan did not")
    got = encode(run_snippet(paddle, code), paddle)
    compare(expected, got, random=cid.endswith("~random"), rtol=rtol, atol=atol, where=cid)
