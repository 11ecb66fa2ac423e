"""paddle.vision.ops against numbers recorded from Paddle 3.3.1 (small fixed inputs), plus
gradients by finite differences, static mode, Layer forms, JPEG reading and errors. The
op-level NumPy references live in tests/ops/db/vision_det.py and vision_roi.py."""
import io

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.vision import ops as V
from tests.static_util import static_guard

PRIOR = np.array([[1., 2., 5., 7.], [0., 0., 3., 3.]], 'float32')
PVAR = np.array([[0.1, 0.2, 0.3, 0.4], [0.2, 0.1, 0.2, 0.2]], 'float32')
TARGET = np.array([[2., 1., 6., 8.], [0.5, 0.5, 2., 4.], [1., 1., 1.5, 2.]], 'float32')
DELTAS = np.array([[[0.1, -0.2, 0.3, 0.0], [0.5, 0.5, -0.5, 0.2]],
                   [[-0.3, 0.1, 0.0, 0.4], [0.0, 0.0, 0.0, 0.0]]], 'float32')

# box_coder outputs of Paddle 3.3.1 on the arrays above
ENCODED = [[[2.5, 0., 0., 0.841181], [4.166667, 10., 1.438411, 4.236489]],
           [[-4.375, -2.25, -3.269431, -0.891687], [-0.416667, 2.5, -3.465736, 0.770753]],
           [[-4.375, -3., -6.931471, -4.023595], [-0.416667, 0., -8.958797, -5.493062]]]
ENCODED_PIXEL = [[[1., -0.833333, 0., 1.438411], [5., 6.25, 1.115718, 3.465736]],
                 [[-4.5, -4.583333, -3.465736, -1.43841], [-1.875, 0.625, -2.350018, 0.588915]],
                 [[-4.5, -5.833333, -6.019864, -5.493062], [-1.875, -1.25, -4.904146, -3.465736]]]
DECODED = [[[0.851651, 1.8, 5.228349, 6.8], [0.442744, 0.088784, 3.157256, 3.211216]],
           [[0.88, 1.666223, 4.88, 7.533777], [0., 0., 3., 3.]]]
DECODED_AXIS1 = [[[0.895408, 1.88, 5.204592, 6.88], [1.487906, 2.177568, 5.012094, 7.422433]],
                 [[-0.12, -0.126574, 2.88, 3.206574], [0., 0., 3., 3.]]]


def _t(a, **kw):
    return paddle.to_tensor(np.asarray(a), **kw)


def test_box_coder_matches_paddle():
    enc = V.box_coder(_t(PRIOR), _t(PVAR), _t(TARGET))
    np.testing.assert_allclose(enc.numpy(), ENCODED, rtol=1e-5, atol=1e-5)
    enc = V.box_coder(_t(PRIOR), [0.1, 0.1, 0.2, 0.2], _t(TARGET), box_normalized=False)
    np.testing.assert_allclose(enc.numpy(), ENCODED_PIXEL, rtol=1e-5, atol=1e-5)
    dec = V.box_coder(_t(PRIOR), _t(PVAR), _t(DELTAS), 'decode_center_size')
    np.testing.assert_allclose(dec.numpy(), DECODED, rtol=1e-5, atol=1e-5)
    dec = V.box_coder(_t(PRIOR), [0.1, 0.1, 0.2, 0.2], _t(DELTAS), 'decode_center_size',
                      False, axis=1)
    np.testing.assert_allclose(dec.numpy(), DECODED_AXIS1, rtol=1e-5, atol=1e-5)


def test_box_coder_decode_inverts_encode_and_has_gradients():
    prior, target = _t(PRIOR.astype('float64')), _t(TARGET.astype('float64'))
    deltas = V.box_coder(prior, [0.1, 0.1, 0.2, 0.2], target)
    back = V.box_coder(prior, [0.1, 0.1, 0.2, 0.2], deltas, 'decode_center_size')
    np.testing.assert_allclose(back.numpy(), np.broadcast_to(TARGET[:, None], (3, 2, 4)),
                               atol=1e-9)
    target.stop_gradient = False
    V.box_coder(prior, [0.1, 0.1, 0.2, 0.2], target).sum().backward()
    assert target.grad is not None and np.isfinite(target.grad.numpy()).all()
    # d/d(x1 of target 0, width 4) summed over the priors (widths 4 and 3): the center term
    # 1 / (2 * prior width * 0.1) plus the log-width term -1 / (target width * 0.2)
    np.testing.assert_allclose(target.grad.numpy()[0, 0],
                               1 / (2 * 4 * 0.1) + 1 / (2 * 3 * 0.1) - 2 / (4 * 0.2), rtol=1e-9)


# deform_conv2d of Paddle 3.3.1: output, x gradient and the first offset gradients of
# sum(output) for the cosine/sine inputs of _dcn_inputs
DCN_OUT = [-0.094506, 0.270276, -0.082878, -0.182339, 0.76719, -0.073355, -0.623462,
           -0.218919, 0.294538, 0.237959, -0.572395, -0.038509, 0.21575, -0.230907,
           -0.046421, 0.601736, -0.228615, -0.299122]
DCN_GX = [0.721802, 0.67399, 0.539752, 0.80454, 0.773603, 1.198272, 0.680793, 0.924243,
          0.639258, 0.931149, 1.168744, 0.394414, 0.100239, 0.113772, 1.057619, 0.515581,
          0.503715, 0.189297, 0.244554, 0.32587, 0.145065, 0.399496, 0.367077, 0.272435,
          0.205095, -0.003009, 0.042948, -0.036656, 0.035553, 0.030826, 0.12519, -0.000058]
DCN_GOFF = [-0.422411, -1.581388, -0.395999, -0.945516, -0.688384, 0.492107, -0.115009,
            -0.049829, 0.001445, 0.774838, 0.042118, -0.078947]


def _dcn_inputs(dtype='float32'):
    x = np.cos(np.arange(32) * 0.7).reshape(1, 2, 4, 4)
    w = np.sin(np.arange(16) * 0.3).reshape(2, 2, 2, 2)
    off = (np.sin(np.arange(72) * 1.3) * 0.9).reshape(1, 8, 3, 3)
    mask = (np.cos(np.arange(36) * 0.4) * 0.5 + 0.5).reshape(1, 4, 3, 3)
    return [a.astype(dtype) for a in (x, off, w, mask)]


def test_deform_conv2d_matches_paddle_values_and_gradients():
    x, off, w, mask = [_t(a, stop_gradient=False) for a in _dcn_inputs()]
    out = V.deform_conv2d(x, off, w, mask=mask)
    out.sum().backward()
    np.testing.assert_allclose(out.numpy().ravel(), DCN_OUT, atol=2e-6)
    np.testing.assert_allclose(x.grad.numpy().ravel(), DCN_GX, atol=2e-6)
    np.testing.assert_allclose(off.grad.numpy().ravel()[:12], DCN_GOFF, atol=2e-6)


def _numeric_grad(f, a, eps=1e-6):
    g = np.zeros_like(a)
    for k in range(a.size):
        old = a.flat[k]
        a.flat[k] = old + eps
        hi = f()
        a.flat[k] = old - eps
        lo = f()
        a.flat[k] = old
        g.flat[k] = (hi - lo) / (2 * eps)
    return g


def test_deform_conv2d_gradients_match_finite_differences():
    arrays = _dcn_inputs('float64')
    arrays[1] = arrays[1] + 0.137  # keep sampling points off integer grid lines
    cot = np.cos(np.arange(18)).reshape(1, 2, 3, 3)

    def loss(*ts):
        return float((V.deform_conv2d(ts[0], ts[1], ts[2], mask=ts[3]) * _t(cot)).sum())

    tensors = [_t(a, stop_gradient=False) for a in arrays]
    (V.deform_conv2d(tensors[0], tensors[1], tensors[2], mask=tensors[3]) * _t(cot)).sum() \
        .backward()
    for k, a in enumerate(arrays):
        want = _numeric_grad(lambda: loss(*[_t(b) for b in arrays]), a)
        np.testing.assert_allclose(tensors[k].grad.numpy(), want, atol=1e-6, rtol=1e-5)


def test_deform_conv2d_zero_offset_is_conv2d_and_layer_form():
    paddle.seed(0)
    layer = V.DeformConv2D(4, 6, 3, padding=1, groups=2, deformable_groups=2)
    x = paddle.rand([2, 4, 5, 5])
    out = layer(x, paddle.zeros([2, 2 * 2 * 9, 5, 5]))
    ref = paddle.nn.functional.conv2d(x, layer.weight, layer.bias, padding=1, groups=2)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), atol=1e-5)
    assert sorted(layer.state_dict()) == ['bias', 'weight']


def test_deform_conv2d_in_a_static_program():
    x, off, w, mask = _dcn_inputs()
    main = static.Program()
    with static_guard(main, static.Program()):
        xs = static.data('x', [1, 2, 4, 4], 'float32')
        os_ = static.data('off', [1, 8, 3, 3], 'float32')
        out = V.deform_conv2d(xs, os_, paddle.to_tensor(w), mask=paddle.to_tensor(mask))
    got, = static.Executor().run(main, feed={'x': x, 'off': off}, fetch_list=[out])
    np.testing.assert_allclose(got.ravel(), DCN_OUT, atol=2e-6)


def test_deform_conv2d_errors_name_the_argument():
    x, off, w, _ = [_t(a) for a in _dcn_inputs()]
    with pytest.raises(ValueError, match="offset must have shape"):
        V.deform_conv2d(x, off[:, :6], w)
    with pytest.raises(ValueError, match="mask must have shape"):
        V.deform_conv2d(x, off, w, mask=paddle.ones([1, 3, 3, 3]))


XX = (np.arange(40, dtype='float32').reshape(1, 2, 4, 5) ** 1.5 / 10)
BOXES = np.array([[0.4, 0.3, 3.6, 2.9], [1.2, 0.5, 2.1, 3.3]], 'float32')
# Paddle 3.3.1 outputs for XX / BOXES, output_size 2
ROI_ALIGN = [0.655356, 1.085611, 2.99098, 3.752269, 11.045196, 12.21308, 16.02962, 17.34832,
             1.058516, 1.199254, 3.958144, 4.188408, 12.12142, 12.457324, 17.67366, 18.054089]
ROI_POOL = [1.852026, 2.7, 7.00928, 8.281908, 14.029612, 15.616977, 22.506222, 24.355492,
            3.648287, 4.156922, 6.4, 7.00928, 17.26007, 18.101933, 21.6, 22.506222]
PSROI = [3., 3., 3.333333, 2.75, 2.833333, 4., 3.166667, 2., 3.5, 3., 4.5, 4., 4.5, 4., 2.,
         1.5]


def test_roi_ops_match_paddle():
    num = _t(np.array([2], 'int32'))
    np.testing.assert_allclose(V.roi_align(_t(XX), _t(BOXES), num, 2).numpy().ravel(),
                               ROI_ALIGN, rtol=1e-5)
    np.testing.assert_allclose(V.RoIPool(2)(_t(XX), _t(BOXES), num).numpy().ravel(),
                               ROI_POOL, rtol=1e-5)
    x8 = np.arange(128, dtype='float32').reshape(1, 8, 4, 4) % 7
    np.testing.assert_allclose(V.PSRoIPool(2)(_t(x8), _t(BOXES), num).numpy().ravel(),
                               PSROI, rtol=1e-5)
    np.testing.assert_allclose(V.RoIAlign(2)(_t(XX), _t(BOXES), num).numpy().ravel(),
                               ROI_ALIGN, rtol=1e-5)


def test_roi_align_gradient_is_the_transposed_map_for_tiny_boxes():
    # NOTE: Paddle's CPU roi_align_grad clamps the ROI size to 1 even when aligned=True
    # while its forward does not; sampan's gradient is the exact transpose of the forward.
    x = _t(np.random.default_rng(0).standard_normal((1, 1, 5, 6)), stop_gradient=False)
    boxes = _t(np.array([[2.2, 3.1, 2.9, 3.6]]) * 0.8)
    num = _t(np.array([1], 'int32'))
    g = np.cos(np.arange(6)).reshape(1, 1, 2, 3)
    (V.roi_align(x, boxes, num, (2, 3)) * _t(g)).sum().backward()
    base = x.numpy().copy()

    def f():
        return float((V.roi_align(_t(base), boxes, num, (2, 3)) * _t(g)).sum())
    np.testing.assert_allclose(x.grad.numpy(), _numeric_grad(f, base), atol=1e-7)


def test_roi_errors_name_the_argument():
    with pytest.raises(ValueError, match="boxes_num"):
        V.roi_align(_t(XX), _t(BOXES), _t(np.array([1], 'int32')), 2)
    with pytest.raises(ValueError, match="boxes must be"):
        V.roi_pool(_t(XX), _t(BOXES[:, :3]), _t(np.array([2], 'int32')), 2)
    with pytest.raises(ValueError, match="multiple"):
        V.psroi_pool(_t(XX), _t(BOXES), _t(np.array([2], 'int32')), 2)


def test_distribute_fpn_proposals_matches_paddle():
    rois = np.array([[0., 0., 300., 300.], [10., 10., 20., 20.], [0., 0., 100., 90.],
                     [5, 5, 500, 700], [1, 1, 60, 50]], 'float32')
    multi, restore, per_level = V.distribute_fpn_proposals(
        _t(rois), 2, 5, 4, 224, rois_num=_t(np.array([2, 3], 'int32')))
    assert [m.numpy().tolist() for m in multi] == [
        [[10.0, 10.0, 20.0, 20.0], [0.0, 0.0, 100.0, 90.0], [1.0, 1.0, 60.0, 50.0]], [],
        [[0.0, 0.0, 300.0, 300.0]], [[5.0, 5.0, 500.0, 700.0]]]
    assert restore.numpy().ravel().tolist() == [3, 0, 1, 4, 2]
    assert [p.numpy().tolist() for p in per_level] == [[1, 2], [0, 0], [1, 0], [0, 1]]
    stacked = paddle.concat([m for m in multi if m.shape[0]])
    np.testing.assert_array_equal(paddle.gather(stacked, restore.flatten()).numpy(), rois)


def test_nms_follows_paddle_rules():
    boxes = _t(np.array([[0, 0, 10, 10], [0, 0, 10, 5], [0, 0, 10, 5.0001]], 'float32'))
    # IoU exactly 0.5 is kept at threshold 0.5 (strictly greater suppresses); no +1 pixel
    assert V.nms(boxes, 0.5).numpy().tolist() == [0, 1]
    assert V.nms(boxes, 0.4999).numpy().tolist() == [0]
    # with scores but no categories, top_k is ignored (as in Paddle)
    scores = _t(np.array([0.1, 0.9, 0.5], 'float32'))
    assert V.nms(boxes, 0.5, scores=scores, top_k=1).numpy().tolist() == [1, 0]
    cats = _t(np.array([0, 1, 1]))
    assert V.nms(boxes, 0.5, scores, cats, [0, 1], top_k=2).numpy().tolist() == [1, 0]
    with pytest.raises(ValueError, match="categories"):
        V.nms(boxes, 0.5, scores, cats)
    with pytest.raises(ValueError, match="top_k"):
        V.nms(boxes, 0.5, scores, cats, [0, 1], top_k=4)


def test_yolo_box_and_prior_box_shapes_and_errors():
    boxes, scores = V.yolo_box(paddle.zeros([2, 14, 3, 3]), _t(np.array([[90, 90]] * 2, 'int32')),
                               [10, 13, 16, 30], 2, 0.01, 32)
    assert boxes.shape == [2, 18, 4] and scores.shape == [2, 18, 2]
    with pytest.raises(ValueError, match="yolo_box: x must be"):
        V.yolo_box(paddle.zeros([1, 13, 3, 3]), _t(np.array([[9, 9]], 'int32')),
                   [10, 13, 16, 30], 2, 0.01, 32)
    with pytest.raises(ValueError, match="max_sizes"):
        V.prior_box(paddle.ones([1, 1, 2, 2]), paddle.ones([1, 1, 8, 8]), [2., 3.], [4.])


def test_yolo_loss_gradient_flows_to_x_only():
    x = paddle.zeros([1, 14, 2, 2])
    x.stop_gradient = False
    gt = _t(np.array([[[0.3, 0.6, 0.4, 0.5]]], 'float32'))
    loss = V.yolo_loss(x, gt, _t(np.array([[1]], 'int32')), [10, 13, 16, 30, 33, 23], [1, 2],
                       2, 0.3, 32)
    loss.sum().backward()
    assert x.grad is not None and float(np.abs(x.grad.numpy()).sum()) > 0
    with pytest.raises(ValueError, match="anchor_mask"):
        V.yolo_loss(x, gt, _t(np.array([[1]], 'int32')), [10, 13], [1], 2, 0.3, 32)


def test_read_file_and_decode_jpeg(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    rgb = np.zeros((6, 8, 3), np.uint8)
    rgb[:, :4] = (250, 20, 20)
    path = tmp_path / "img.jpg"
    Image.fromarray(rgb).save(path, quality=95)
    data = V.read_file(str(path))
    assert data.dtype == paddle.uint8 and data.shape == [path.stat().st_size]
    img = V.decode_jpeg(data)
    assert img.shape == [3, 6, 8] and img.dtype == paddle.uint8
    assert abs(int(img.numpy()[0, 3, 1]) - 250) < 8 and int(img.numpy()[1, 3, 6]) < 10
    assert V.decode_jpeg(data, mode='gray').shape == [1, 6, 8]
    buf = io.BytesIO()
    Image.fromarray(rgb[..., 0]).save(buf, format='JPEG')
    gray = _t(np.frombuffer(buf.getvalue(), np.uint8))
    assert V.decode_jpeg(gray).shape == [1, 6, 8]
    assert V.decode_jpeg(gray, mode='rgb').shape == [3, 6, 8]
    with pytest.raises(ValueError, match="mode"):
        V.decode_jpeg(data, mode='bgr')
    with pytest.raises(ValueError, match="not a decodable JPEG"):
        V.decode_jpeg(_t(np.array([1, 2, 3], np.uint8)))
    with pytest.raises(FileNotFoundError, match="no such file"):
        V.read_file(str(tmp_path / "missing.jpg"))


def test_public_names_match_paddle():
    paddle_names = {'yolo_loss', 'yolo_box', 'prior_box', 'box_coder', 'deform_conv2d',
                    'DeformConv2D', 'distribute_fpn_proposals', 'generate_proposals',
                    'read_file', 'decode_jpeg', 'roi_pool', 'RoIPool', 'psroi_pool',
                    'PSRoIPool', 'roi_align', 'RoIAlign', 'nms', 'matrix_nms'}
    assert paddle_names <= set(V.__all__)
    assert all(callable(getattr(V, n)) for n in V.__all__)


MATRIX_NMS_LABELS = [1.0, 1.0, 2.0, 2.0, 1.0]
MATRIX_NMS_SCORES = [0.99721, 0.980835, 0.721488, 0.688447, 0.650459]
MATRIX_NMS_INDEX = [1, 2, 3, 0, 4]


def test_matrix_nms_matches_paddle():
    rng = np.random.default_rng(0)
    xy = rng.uniform(0, 1, (1, 5, 2))
    boxes = np.concatenate([xy, xy + rng.uniform(0.1, 0.5, (1, 5, 2))], -1).astype('float32')
    scores = rng.uniform(0, 1, (1, 3, 5)).astype('float32')
    out, num, index = V.matrix_nms(_t(boxes), _t(scores), 0.2, 0.25, 4, 5, return_index=True,
                                   normalized=False)
    # Paddle 3.3.1 on the same arrays: labels, decayed scores, indices
    np.testing.assert_array_equal(out.numpy()[:, 0], MATRIX_NMS_LABELS)
    np.testing.assert_allclose(out.numpy()[:, 1], MATRIX_NMS_SCORES, atol=2e-6)
    assert index.numpy().ravel().tolist() == MATRIX_NMS_INDEX
    assert num.numpy().tolist() == [len(MATRIX_NMS_INDEX)]
    np.testing.assert_array_equal(out.numpy()[:, 2:], boxes[0][MATRIX_NMS_INDEX])
