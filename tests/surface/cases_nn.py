"""Cases for the `paddle.nn` / `paddle.nn.functional` names no other test exercised.

Snippets set `out`; see cases_paddle.py for the protocol. Expected results: paddle_values.py
(recorded from Paddle 3.3.1 by record_paddle.py). Weights are set with initializer.Assign so the
results are deterministic.
"""

PRE = ("F = paddle.nn.functional\n"
       "x3 = paddle.to_tensor(np.sin(np.arange(2 * 2 * 4 * 4 * 4) * 0.37)"
       ".reshape([2, 2, 4, 4, 4]).astype('float32'))\n"
       "x1 = paddle.to_tensor(np.cos(np.arange(2 * 3 * 8) * 0.41).reshape([2, 3, 8])"
       ".astype('float32'))\n"
       "def wattr(shape):\n"
       "    w = (np.sin(np.arange(int(np.prod(shape))) * 0.7) * 0.5).reshape(shape)\n"
       "    return paddle.ParamAttr(initializer=paddle.nn.initializer.Assign("
       "w.astype('float32')))\n"
       "def battr(n):\n"
       "    return paddle.ParamAttr(initializer=paddle.nn.initializer.Assign("
       "np.linspace(-0.2, 0.3, n).astype('float32')))\n")

CASES = {
    "nn.AdaptiveMaxPool3D": ("m = paddle.nn.AdaptiveMaxPool3D(output_size=(2, 1, 3), "
                             "return_mask=True)\n"
                             "out = tuple(m(x3))"),
    "nn.Conv1DTranspose": ("m = paddle.nn.Conv1DTranspose(3, 2, 3, stride=2, padding=1, "
                           "output_padding=1, weight_attr=wattr([3, 2, 3]), bias_attr=battr(2))\n"
                           "out = (m(x1), m.weight.shape)"),
    "nn.Conv3D": ("m = paddle.nn.Conv3D(2, 3, (2, 3, 3), stride=(1, 2, 1), padding=1, "
                  "weight_attr=wattr([3, 2, 2, 3, 3]), bias_attr=battr(3))\n"
                  "r = m(x3)\nr.sum().backward()\n"
                  "out = (r, m.weight.grad, m.bias.grad)"),
    "nn.MaxUnPool1D": ("p, idx = F.max_pool1d(x1, 2, stride=2, return_mask=True)\n"
                       "out = paddle.nn.MaxUnPool1D(2, stride=2)(p, idx)"),
    "nn.MaxUnPool3D": ("p, idx = F.max_pool3d(x3, 2, stride=2, return_mask=True)\n"
                       "out = paddle.nn.MaxUnPool3D(2, stride=2, output_size=[4, 4, 4])(p, idx)"),
    "F.avg_pool3d": "out = (F.avg_pool3d(x3, 2, stride=2), "
                    "F.avg_pool3d(x3, 3, stride=1, padding=1, exclusive=False, ceil_mode=True))",
    "F.avg_pool3d-divisor": "out = F.avg_pool3d(x3, 2, stride=2, divisor_override=3)",
    "F.max_unpool1d": ("p, idx = F.max_pool1d(x1, 3, stride=2, return_mask=True)\n"
                       "out = (p, idx, F.max_unpool1d(p, idx, 3, stride=2, output_size=[2, 3, "
                       "8]))"),
    "F.max_unpool1d-index-out-of-range": ("p, idx = F.max_pool1d(x1, 3, stride=2, padding=1, "
                                          "return_mask=True)\n"
                       "out = (p, idx, F.max_unpool1d(p, idx, 3, stride=2, padding=1))"),
    "F.max_unpool3d": ("p, idx = F.max_pool3d(x3, 2, stride=2, return_mask=True)\n"
                       "out = (idx, F.max_unpool3d(p, idx, 2, stride=2))"),
    "F.max_unpool3d-NDHWC-error": ("p, idx = F.max_pool3d(x3, 2, stride=2, return_mask=True)\n"
                                   "out = F.max_unpool3d(p, idx, 2, data_format='NDHWC')"),
}
