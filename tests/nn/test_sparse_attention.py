"""nn.functional.sparse_attention (Paddle: CUDA only) against a NumPy per-row CSR reference:
values, masks, gradients (first and second order), fully masked rows, static mode, errors."""
import numpy as np
import pytest

import sampan as paddle
from sampan.nn.functional.sparse_attention import sparse_attention
from tests.static_util import static_guard


def t(a, **kw):
    return paddle.to_tensor(a, **kw)


def _ref(q, k, v, offset, columns, key_padding_mask=None, attn_mask=None):
    """Row by row over the CSR layout: softmax of q.k / sqrt(d) over the row's columns
    that neither mask zeroes; rows with no column left give 0."""
    batch, heads, seq, dim = q.shape
    out = np.zeros(q.shape)
    for b in range(batch):
        for h in range(heads):
            for r in range(seq):
                cols = [int(c) for c in columns[b, h, offset[b, h, r]:offset[b, h, r + 1]]
                        if (key_padding_mask is None or key_padding_mask[b, c] != 0) and
                        (attn_mask is None or attn_mask[r, c] != 0)]
                if not cols:
                    continue
                s = np.array([q[b, h, r] @ k[b, h, c] for c in cols]) / np.sqrt(dim)
                p = np.exp(s - s.max())
                p /= p.sum()
                out[b, h, r] = sum(w * v[b, h, c] for w, c in zip(p, cols))
    return out.astype(q.dtype)


def _random_layout(rng, batch, heads, seq, nnz_per_row):
    """CSR layout with the same nnz for every (batch, head); some rows may be empty."""
    offsets, columns = [], []
    for _ in range(batch * heads):
        counts = rng.multinomial(nnz_per_row * seq, [1 / seq] * seq).clip(max=seq)
        counts[-1] += nnz_per_row * seq - counts.sum()  # keep the total fixed
        while counts[-1] > seq:
            i = rng.integers(0, seq - 1)
            if counts[i] < seq:
                counts[i] += 1
                counts[-1] -= 1
        cols = [np.sort(rng.choice(seq, size=n, replace=False)) for n in counts]
        offsets.append(np.concatenate([[0], np.cumsum(counts)]))
        columns.append(np.concatenate(cols))
    shape = (batch, heads)
    return (np.array(offsets, "int32").reshape(shape + (seq + 1,)),
            np.array(columns, "int32").reshape(shape + (-1,)))


def test_paddle_doc_example():
    # the example of paddle.nn.functional.sparse_attention (Paddle 3.3.1 docs, GPU outputs)
    q = t([[[[0, 1], [2, 3], [0, 1], [2, 3]]]], dtype="float32")
    offset = t([[[0, 2, 4, 6, 8]]], dtype="int32")
    columns = t([[[0, 1, 0, 1, 2, 3, 2, 3]]], dtype="int32")
    kpm = t([[1, 1, 1, 0]], dtype="float32")
    am = t([[1, 0, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1]], dtype="float32")
    got = sparse_attention(q, q, q, offset, columns, key_padding_mask=kpm, attn_mask=am)
    np.testing.assert_allclose(got.numpy(), [[[[0.0, 1.0], [1.9983027, 2.9983027],
                                                [0.0, 1.0], [0.0, 1.0]]]], rtol=1e-6)
    got = sparse_attention(q, q, q, offset, columns)
    assert got.dtype == paddle.float32 and got.shape == [1, 1, 4, 2]
    np.testing.assert_allclose(got.numpy(), [[[[1.60885942, 2.60885954], [1.9983027, 2.9983027],
                                                [1.60885942, 2.60885954],
                                                [1.9983027, 2.9983027]]]], rtol=1e-6)


@pytest.mark.parametrize("masks", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_matches_numpy_reference(masks, dtype):
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((2, 3, 5, 4)).astype(dtype) for _ in range(3))
    offset, columns = _random_layout(rng, 2, 3, 5, 2)
    kw = {}
    if masks:
        kw = {"key_padding_mask": np.array([[1, 1, 0, 1, 1], [0, 1, 1, 1, 1]], dtype),
              "attn_mask": (rng.uniform(size=(5, 5)) > 0.3).astype(dtype)}
    got = sparse_attention(t(q), t(k), t(v), t(offset), t(columns),
                           **{n: t(m) for n, m in kw.items()})
    want = _ref(q, k, v, offset, columns, **kw)
    assert got.dtype == paddle.to_tensor(q).dtype
    tol = 1e-12 if dtype == "float64" else 1e-5
    np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)


def test_gradients_match_finite_differences():
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal((1, 2, 4, 3)) for _ in range(3)]
    offset, columns = _random_layout(rng, 1, 2, 4, 2)
    kpm = np.array([[1.0, 0.0, 1.0, 1.0]])
    args = (t(offset), t(columns))
    tensors = [t(a, stop_gradient=False) for a in arrays]
    weight = rng.standard_normal((1, 2, 4, 3))
    loss = (sparse_attention(*tensors, *args, key_padding_mask=t(kpm)) * t(weight)).sum()
    grads = paddle.grad([loss], tensors, create_graph=True)

    def f(*arrs):
        return float((_ref(*arrs, offset, columns, key_padding_mask=kpm) * weight).sum())
    eps = 1e-6
    for i, g in enumerate(grads):
        num = np.zeros_like(arrays[i])
        for idx in np.ndindex(*arrays[i].shape):
            plus = [a.copy() for a in arrays]
            minus = [a.copy() for a in arrays]
            plus[i][idx] += eps
            minus[i][idx] -= eps
            num[idx] = (f(*plus) - f(*minus)) / (2 * eps)
        np.testing.assert_allclose(g.numpy(), num, atol=1e-7)
    # second order: d/dq of sum(grad_k ** 2) against differences of the first-order grad
    (gq,) = paddle.grad([(grads[1] ** 2).sum()], [tensors[0]])
    assert gq.shape == [1, 2, 4, 3] and np.isfinite(gq.numpy()).all()
    d = np.zeros_like(arrays[0])
    d[0, 1, 2, 0] = eps

    def grad_k_sq(q):
        qt = t(q, stop_gradient=False)
        kt = t(arrays[1], stop_gradient=False)
        out = sparse_attention(qt, kt, t(arrays[2]), *args, key_padding_mask=t(kpm))
        (gk,) = paddle.grad([(out * t(weight)).sum()], [kt])
        return float((gk.numpy() ** 2).sum())
    num = (grad_k_sq(arrays[0] + d) - grad_k_sq(arrays[0] - d)) / (2 * eps)
    np.testing.assert_allclose(gq.numpy()[0, 1, 2, 0], num, rtol=1e-5, atol=1e-7)


def test_fully_masked_and_empty_rows_give_zeros_and_finite_grads():
    q = t(np.ones((1, 1, 3, 2)), stop_gradient=False)
    offset = t(np.array([[[0, 0, 2, 3]]], "int32"))       # row 0 empty
    columns = t(np.array([[[0, 1, 2]]], "int32"))
    kpm = t(np.array([[1.0, 1.0, 0.0]]))                  # row 2's only column masked
    out = sparse_attention(q, q, q, offset, columns, key_padding_mask=kpm)
    np.testing.assert_array_equal(out.numpy()[0, 0, [0, 2]], 0.0)
    np.testing.assert_allclose(out.numpy()[0, 0, 1], [1.0, 1.0])
    out.sum().backward()
    assert np.isfinite(q.grad.numpy()).all()


def test_static_program_matches_eager():
    from sampan import static
    from sampan.utils import unique_name
    rng = np.random.default_rng(2)
    q = rng.standard_normal((2, 1, 4, 3))
    offset, columns = _random_layout(rng, 2, 1, 4, 2)
    main, startup = static.Program(), static.Program()
    with unique_name.guard(), static_guard(main, startup):
        qv = static.data("q", [2, 1, 4, 3], "float64")
        ov = static.data("o", [2, 1, 5], "int32")
        cv = static.data("c", [2, 1, 8], "int32")
        out = sparse_attention(qv, qv, qv, ov, cv)
    got = static.Executor().run(main, feed={"q": q, "o": offset, "c": columns},
                                fetch_list=[out])[0]
    np.testing.assert_allclose(got, _ref(q, q, q, offset, columns), rtol=1e-12)


def test_errors():
    q = t(np.zeros((1, 1, 4, 2), "float32"))
    offset = t(np.array([[[0, 2, 4, 6, 8]]], "int32"))
    columns = t(np.array([[[0, 1, 0, 1, 2, 3, 2, 3]]], "int32"))
    with pytest.raises(ValueError, match=r"sparse_attention: query must be 4-D"):
        sparse_attention(q[0], q, q, offset, columns)
    with pytest.raises(TypeError, match=r"sparse_attention: key must be a float32 or float64"):
        sparse_attention(q, t(np.zeros((1, 1, 4, 2), "int32")), q, offset, columns)
    with pytest.raises(ValueError, match=r"query, key and value must have the same shape"):
        sparse_attention(q, q, t(np.zeros((1, 1, 4, 3), "float32")), offset, columns)
    with pytest.raises(ValueError, match=r"sparse_csr_offset must have shape \[1, 1, 5\]"):
        sparse_attention(q, q, q, offset[:, :, :4], columns)
    with pytest.raises(ValueError, match=r"sparse_csr_offset rows must start at 0"):
        sparse_attention(q, q, q, t(np.array([[[0, 2, 4, 6, 7]]], "int32")), columns)
    with pytest.raises(ValueError, match=r"sparse_csr_columns must lie in \[0, 4\)"):
        sparse_attention(q, q, q, offset, columns + 1)
    with pytest.raises(ValueError, match=r"key_padding_mask must have shape \[1, 4\]"):
        sparse_attention(q, q, q, offset, columns, key_padding_mask=t(np.ones((4,))))
    with pytest.raises(ValueError, match=r"attn_mask must have shape \[4, 4\]"):
        sparse_attention(q, q, q, offset, columns, attn_mask=t(np.ones((4, 3))))
