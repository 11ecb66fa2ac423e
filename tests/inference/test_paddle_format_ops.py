"""Single Paddle ops (legacy spellings, slots and attrs as Paddle writes them) translated by
paddle_format and checked against NumPy references; covers ops the model fixtures do not."""
import numpy as np
import pytest

from sampan.inference.paddle_format import TABLE, Unsupported
from sampan.inference.paddle_format.build import build_program
from sampan.inference.paddle_format.ir import PModel, POp, PVar
from sampan.static.executor import Executor, Scope, scope_guard

rng = np.random.default_rng(0)
X = rng.standard_normal((2, 3, 4, 4)).astype("float32")
V = rng.standard_normal((2, 3, 4)).astype("float32")


def run_op(type_, inputs, attrs, out_slots=("Out",)):
    """The first input is fed (batch dim declared -1); the others are parameters."""
    slots, params, feeds = {}, {}, []
    for i, (slot, value) in enumerate(inputs.items()):
        arrays = value if isinstance(value, list) else [value]
        names = [f"{slot.lower()}_{k}" for k in range(len(arrays))]
        slots[slot] = names
        for name, arr in zip(names, arrays):
            if i == 0 and not feeds:
                feeds.append((name, arr))
            else:
                params[name] = arr
    outs = {s: [f"out_{s}"] for s in out_slots}
    model = PModel([POp(type_, slots, outs, dict(attrs))],
                   {n: PVar(n, [-1, *a.shape[1:]], str(a.dtype)) for n, a in feeds}, [
                       n for n, _ in feeds], [f"out_{s}" for s in out_slots], "pdmodel")
    program, _, fetches = build_program(model, params, "op.pdmodel", TABLE)
    scope = Scope()
    for k, v in params.items():
        scope.set(k, v)
    with scope_guard(scope):
        return Executor().run(program, feed={feeds[0][0]: feeds[0][1]}, fetch_list=fetches)


def _np_conv(x, w, stride, pads):
    (pt, pb), (pl, pr) = pads
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    n, _, h, wd = xp.shape
    kh, kw = w.shape[2:]
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, w.shape[0], oh, ow), "float32")
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w)
    return out


W12 = rng.standard_normal((12, 5)).astype("float32")
B5 = rng.standard_normal(5).astype("float32")
WC = rng.standard_normal((2, 3, 3, 3)).astype("float32")
C3 = rng.uniform(0.5, 1.5, 3).astype("float32")
S12 = rng.standard_normal(12).astype("float32")
IDS = np.array([[0, 2, 1], [2, 2, 0]], "int64")
EMB = rng.standard_normal((3, 4)).astype("float32")
M = rng.standard_normal((2, 4, 4)).astype("float32")


def _ln(v, s, b):
    f = v.reshape(2, 12)
    f = (f - f.mean(1, keepdims=True)) / np.sqrt(f.var(1, keepdims=True) + 1e-5)
    return (f * s + b).reshape(v.shape)


CASES = {
    "fc_relu": ("fc", {"Input": V, "W": W12, "Bias": B5},
                {"in_num_col_dims": 1, "activation_type": "relu"},
                lambda: np.maximum(V.reshape(2, 12) @ W12 + B5, 0)),
    "mul": ("mul", {"X": V, "Y": W12}, {"x_num_col_dims": 1, "y_num_col_dims": 1},
            lambda: V.reshape(2, 12) @ W12),
    "mul_3d": ("mul", {"X": V, "Y": W12[:4]}, {"x_num_col_dims": 2},
               lambda: V @ W12[:4]),
    "matmul_v1": ("matmul", {"X": M, "Y": M}, {"transpose_Y": True, "alpha": 0.5},
                  lambda: 0.5 * M @ M.transpose(0, 2, 1)),
    "add_axis1": ("elementwise_add", {"X": X, "Y": C3}, {"axis": 1},
                  lambda: X + C3[None, :, None, None]),
    "div": ("elementwise_div", {"X": X, "Y": X[:1] + 3}, {"axis": -1}, lambda: X / (X[:1] + 3)),
    "flatten2": ("flatten2", {"X": X}, {"axis": 2}, lambda: X.reshape(6, 16)),
    "hard_swish": ("hard_swish", {"X": X}, {}, lambda: X * np.clip(X + 3, 0, 6) / 6),
    "hard_sigmoid": ("hard_sigmoid", {"X": X}, {"slope": 0.2, "offset": 0.5},
                     lambda: np.clip(0.2 * X + 0.5, 0, 1)),
    "dropout_infer": ("dropout", {"X": X}, {"dropout_prob": 0.3,
                                            "dropout_implementation": "downgrade_in_infer"},
                      lambda: X * np.float32(0.7)),
    "dropout_upscale": ("dropout", {"X": X}, {"dropout_prob": 0.3,
                                              "dropout_implementation": "upscale_in_train"},
                        lambda: X),
    "reduce_mean": ("reduce_mean", {"X": X}, {"dim": [1], "keep_dim": True},
                    lambda: X.mean(1, keepdims=True)),
    "reduce_sum_all": ("reduce_sum", {"X": X}, {"dim": [0], "reduce_all": True},
                       lambda: X.sum()),
    "reduce_max": ("reduce_max", {"X": X}, {"dim": [-1]}, lambda: X.max(-1)),
    "arg_max": ("arg_max", {"X": V}, {"axis": 1, "dtype": 3}, lambda: V.argmax(1)),
    "squeeze2": ("squeeze2", {"X": X[:, :1]}, {"axes": [1]}, lambda: X[:, 0]),
    "unsqueeze2": ("unsqueeze2", {"X": V}, {"axes": [1, 4]}, lambda: V[:, None, :, :, None]),
    "scale_before": ("scale", {"X": X}, {"scale": 2.0, "bias": 1.0, "bias_after_scale": False},
                     lambda: (X + 1) * 2),
    "pool_global_avg": ("pool2d", {"X": X}, {"pooling_type": "avg", "global_pooling": True,
                                              "ksize": [2, 2]},
                        lambda: X.mean((2, 3), keepdims=True)),
    "pool_max_ceil": ("pool2d", {"X": X[:, :, :3, :3]}, {"pooling_type": "max", "ksize": [2, 2],
                                                         "strides": [2, 2], "ceil_mode": True,
                                                         "paddings": [0, 0]},
                      lambda: np.stack([np.stack([X[:, :, i:i + 2, j:j + 2][:, :, :3 - i, :3 - j]
                                                  .max((2, 3)) for j in (0, 2)], -1)
                                        for i in (0, 2)], -2)),
    "conv_asym_pad": ("conv2d", {"Input": X, "Filter": WC},
                      {"strides": [1, 1], "paddings": [0, 1, 1, 0], "dilations": [1, 1],
                       "groups": 1}, lambda: _np_conv(X, WC, 1, ((0, 1), (1, 0))),
                      ("Output",)),
    "batch_norm": ("batch_norm", {"X": X, "Scale": C3, "Bias": C3 - 1, "Mean": C3 / 3,
                                  "Variance": C3},
                   {"epsilon": 1e-5, "is_test": True},
                   lambda: ((X - (C3 / 3)[:, None, None]) / np.sqrt(C3 + 1e-5)[:, None, None]
                            * C3[:, None, None] + (C3 - 1)[:, None, None]), ("Y",)),
    "layer_norm_2d": ("layer_norm", {"X": V, "Scale": S12, "Bias": S12 / 2},
                      {"begin_norm_axis": 1, "epsilon": 1e-5},
                      lambda: _ln(V, S12, S12 / 2), ("Y",)),
    "embedding_pad": ("lookup_table_v2", {"Ids": IDS, "W": EMB}, {"padding_idx": 2},
                      lambda: np.where((IDS == 2)[..., None], 0, EMB[IDS])),
    "cast_int32": ("cast", {"X": X * 3}, {"in_dtype": 5, "out_dtype": 2},
                   lambda: (X * 3).astype("int32")),
    "softmax_axis1": ("softmax", {"X": V}, {"axis": 1},
                      lambda: np.exp(V) / np.exp(V).sum(1, keepdims=True)),
    "top_k": ("top_k_v2", {"X": V}, {"k": 2, "axis": -1},
              lambda: -np.sort(-V, -1)[..., :2]),
    "transpose2": ("transpose2", {"X": X}, {"axis": [0, 2, 3, 1]},
                   lambda: X.transpose(0, 2, 3, 1)),
    "reshape2_zero": ("reshape2", {"X": X}, {"shape": [0, -1, 8]}, lambda: X.reshape(2, 6, 8)),
    "concat": ("concat", {"X": [V, V * 2]}, {"axis": 2}, lambda: np.concatenate([V, V * 2], 2)),
    "slice_decrease": ("slice", {"Input": V}, {"axes": [1, 2], "starts": [1, 0],
                                               "ends": [2, 3], "decrease_axis": [1]},
                       lambda: V[:, 1, 0:3]),
    "strided_slice": ("strided_slice", {"Input": V}, {"axes": [2], "starts": [0], "ends": [4],
                                                      "strides": [2]}, lambda: V[:, :, ::2]),
    "gather_axis": ("gather", {"X": V, "Index": np.array([2, 0])}, {"axis": 1},
                    lambda: V[:, [2, 0]]),
    "expand_v2": ("expand_v2", {"X": V[:, :1]}, {"shape": [-1, 3, 4]},
                  lambda: np.broadcast_to(V[:, :1], (2, 3, 4))),
    "tile": ("tile", {"X": V}, {"repeat_times": [1, 2, 1]}, lambda: np.tile(V, (1, 2, 1))),
    "prelu_channel": ("prelu", {"X": X, "Alpha": C3 / 4}, {"mode": "channel"},
                      lambda: np.where(X > 0, X, X * (C3 / 4)[:, None, None])),
    "clip": ("clip", {"X": X}, {"min": -0.5, "max": 0.5}, lambda: np.clip(X, -0.5, 0.5)),
    "gelu_tanh": ("gelu", {"X": X}, {"approximate": True},
                  lambda: 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 3)))),
    "leaky_relu": ("leaky_relu", {"X": X}, {"alpha": 0.2}, lambda: np.where(X > 0, X, 0.2 * X)),
    "pow": ("pow", {"X": np.abs(X)}, {"factor": 1.5}, lambda: np.abs(X) ** 1.5),
    "sum_add_n": ("sum", {"X": [V, V * 2, V * 3]}, {}, lambda: V * 6),
    "triu": ("tril_triu", {"X": M}, {"lower": False, "diagonal": 1}, lambda: np.triu(M, 1)),
    "argsort_desc": ("argsort", {"X": V}, {"axis": 1, "descending": True},
                     lambda: -np.sort(-V, 1)),
    "logsumexp": ("logsumexp", {"X": V}, {"axis": [2], "keepdim": False},
                  lambda: np.log(np.exp(V).sum(2))),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_op_matches_numpy(case):
    type_, inputs, attrs, ref, *slots = CASES[case]
    out = run_op(type_, inputs, attrs, *slots)[0]
    want = ref()
    assert out.shape == np.shape(want), (out.shape, np.shape(want))
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_split_sections():
    model_outs = run_split()
    np.testing.assert_allclose(model_outs[0], V[:, :1])
    np.testing.assert_allclose(model_outs[1], V[:, 1:])


def test_unstack():
    outs = run_split(POp("unstack", {"X": ["x"]}, {"Y": ["a", "b"]}, {"axis": 2}), V[:, :, :2])
    np.testing.assert_allclose(outs[0], V[:, :, 0])
    np.testing.assert_allclose(outs[1], V[:, :, 1])


def run_split(op=None, x=V):
    op = op or POp("split", {"X": ["x"]}, {"Out": ["a", "b"]}, {"sections": [1, 2], "axis": 1})
    model = PModel([op],
                   {"x": PVar("x", [-1, *x.shape[1:]], "float32")}, ["x"], ["a", "b"], "pdmodel")
    program, feeds, fetches = build_program(model, {}, "split.pdmodel", TABLE)
    return Executor().run(program, feed={"x": x}, fetch_list=fetches)


def test_fill_constant_and_shape_arithmetic():
    """shape -> slice -> fill_constant with a run-time batch dim feeds an rnn-style zero
    state only; a constant shape folds into a program constant."""
    model = PModel([POp("fill_constant", {}, {"Out": ["c"]},
                        {"shape": [3, 4], "value": 1.5, "dtype": 5}),
                    POp("elementwise_add", {"X": ["x"], "Y": ["c"]}, {"Out": ["y"]}, {})],
                   {"x": PVar("x", [-1, 3, 4], "float32")}, ["x"], ["y"], "pdmodel")
    program, feeds, fetches = build_program(model, {}, "f.pdmodel", TABLE)
    out, = Executor().run(program, feed={"x": V}, fetch_list=fetches)
    np.testing.assert_allclose(out, V + 1.5)


def test_translation_error_names_file_and_op():
    with pytest.raises(Unsupported, match=r"bad.pdmodel.*reshape2.*run time"):
        model = PModel([POp("reshape2", {"X": ["x"], "ShapeTensor": ["x"]}, {"Out": ["y"]},
                            {"shape": [-1]})],
                       {"x": PVar("x", [-1, 3], "float32")}, ["x"], ["y"], "pdmodel")
        build_program(model, {}, "bad.pdmodel", TABLE)


def _dynamic_model(ops, fetches):
    return PModel(ops, {"x": PVar("x", [-1, 4], "float32")}, ["x"], fetches, "pdmodel")


SHAPE_OPS = [
    POp("shape", {"Input": ["x"]}, {"Out": ["s"]}, {}),
    POp("slice", {"Input": ["s"]}, {"Out": ["b"]}, {"axes": [0], "starts": [0], "ends": [1],
                                                  "decrease_axis": [0]}),
    POp("fill_constant", {}, {"Out": ["two"]}, {"shape": [1], "value": 2.0, "dtype": 2}),
]


@pytest.mark.parametrize("batch", [1, 3])
def test_run_time_shapes(batch):
    """Paddle's shape arithmetic on a run-time batch: fill_constant / reshape2 whose shapes
    come from shape -> slice, and fill_constant_batch_size_like."""
    ops = SHAPE_OPS + [
        POp("fill_constant", {"ShapeTensorList": ["b", "two", "two"]}, {"Out": ["f"]},
            {"shape": [-1, 2, 2], "value": 0.5, "dtype": 5}),
        POp("reshape2", {"X": ["x"], "ShapeTensor": ["b", "two", "two"]}, {"Out": ["r"]},
            {"shape": [-1, 2, 2]}),
        POp("elementwise_add", {"X": ["r"], "Y": ["f"]}, {"Out": ["y"]}, {}),
        POp("fill_constant_batch_size_like", {"Input": ["x"]}, {"Out": ["z"]},
            {"shape": [-1, 3], "value": 1.0, "dtype": 5, "input_dim_idx": 0,
             "output_dim_idx": 0}),
    ]
    program, feeds, fetches = build_program(_dynamic_model(ops, ["y", "z"]), {}, "d.pdmodel",
                                            TABLE)
    x = rng.standard_normal((batch, 4)).astype("float32")
    y, z = Executor().run(program, feed={"x": x}, fetch_list=fetches)
    np.testing.assert_allclose(y, x.reshape(batch, 2, 2) + 0.5, rtol=1e-6)
    np.testing.assert_array_equal(z, np.ones((batch, 3), "float32"))
