"""Tensor printing matches PaddlePaddle 3.3.1 (outputs recorded from Paddle, not computed).

Each expected string below is what `print(paddle.to_tensor(...))` printed under Paddle 3.3.1.
"""
import numpy as np
import pytest

import sampan as paddle
from sampan.framework import printing

T = paddle.to_tensor
HEAD = "Tensor(shape={}, dtype={}, place=Place(cpu), stop_gradient={},"

# name: (builder, shape, dtype, stop_gradient, values text as Paddle printed it)
CASES = {
    'frac': (lambda: T([1.5, 2.25]),
        '[2]', 'float32', True, '       [1.50000000, 2.25000000])'),
    'small': (lambda: T([0.00001, 3.]),
        '[2]', 'float32', True, '       [0.00001000, 3.        ])'),
    'big': (lambda: T([1000000., 2.]),
        '[2]', 'float32', True, '       [1000000., 2.      ])'),
    'integral': (lambda: T([3., 4.]),
        '[2]', 'float32', True, '       [3., 4.])'),
    'scalar': (lambda: T(3.),
        '[]', 'float32', True, '       3.)'),
    'neg_scalar': (lambda: T(-2.5),
        '[]', 'float32', True, '       -2.50000000)'),
    'int': (lambda: T([1, 2, 3]),
        '[3]', 'int64', True, '       [1, 2, 3])'),
    'int_signed2d': (lambda: T([[-1, 2], [3, -40]]),
        '[2, 2]', 'int64', True, '       [[-1 ,  2 ],\n        [ 3 , -40]])'),
    'bool': (lambda: T([True, False]),
        '[2]', 'bool', True, '       [True , False])'),
    'bool_all': (lambda: T([True, True]),
        '[2]', 'bool', True, '       [True, True])'),
    'bool0d': (lambda: T(True),
        '[]', 'bool', True, '       True)'),
    'complex': (lambda: T([1+2j, 3.5-1j]),
        '[2]', 'complex64', True, '       [(1.00000000+2.00000000j), (3.50000000-1.00000000j)])'),
    'complex128': (lambda: T(np.array([1+2j, -3-1j])),
        '[2]', 'complex128', True,
        '       [ (1.00000000+2.00000000j), (-3.00000000-1.00000000j)])'),
    'f16': (lambda: T([1.5, 2.25], dtype='float16'),
        '[2]', 'float16', True, '       [1.50000000, 2.25000000])'),
    'bf16': (lambda: T([1.5, 2.25], dtype='bfloat16'),
        '[2]', 'bfloat16', True, '       [1.50000000, 2.25000000])'),
    'f64': (lambda: T(np.array([0.1, 2.0])),
        '[2]', 'float64', True, '       [0.10000000, 2.        ])'),
    'empty': (lambda: paddle.zeros([0, 3]),
        '[0, 3]', 'float32', True, '       [])'),
    'empty3': (lambda: paddle.zeros([2, 0, 3]),
        '[2, 0, 3]', 'float32', True, '       [[],\n\n        []])'),
    'empty1': (lambda: paddle.zeros([0]),
        '[0]', 'float32', True, '       [])'),
    'large': (lambda: paddle.arange(2000).astype('float32'),
        '[2000]', 'float32', True, '       [0.   , 1.   , 2.   , ..., 1997., 1998., 1999.])'),
    'large2d': (lambda: T(np.arange(2000).reshape(40, 50)),
        '[40, 50]', 'int64', True,
        '       [[0   , 1   , 2   , ..., 47  , 48  , 49  ],\n'
        '        [50  , 51  , 52  , ..., 97  , 98  , 99  ],\n'
        '        [100 , 101 , 102 , ..., 147 , 148 , 149 ],\n'
        '        ...,\n'
        '        [1850, 1851, 1852, ..., 1897, 1898, 1899],\n'
        '        [1900, 1901, 1902, ..., 1947, 1948, 1949],\n'
        '        [1950, 1951, 1952, ..., 1997, 1998, 1999]])'),
    'large3d': (lambda: T(np.arange(2400.).reshape(10, 12, 20) / 3),
        '[10, 12, 20]', 'float64', True,
        '       [[[0.          , 0.33333333  , 0.66666667  , ..., 5.66666667  ,\n'
        '          6.          , 6.33333333  ],\n'
        '         [6.66666667  , 7.          , 7.33333333  , ..., 12.33333333 ,\n'
        '          12.66666667 , 13.         ],\n'
        '         [13.33333333 , 13.66666667 , 14.         , ..., 19.         ,\n'
        '          19.33333333 , 19.66666667 ],\n'
        '         ...,\n'
        '         [60.         , 60.33333333 , 60.66666667 , ..., 65.66666667 ,\n'
        '          66.         , 66.33333333 ],\n'
        '         [66.66666667 , 67.         , 67.33333333 , ..., 72.33333333 ,\n'
        '          72.66666667 , 73.         ],\n'
        '         [73.33333333 , 73.66666667 , 74.         , ..., 79.         ,\n'
        '          79.33333333 , 79.66666667 ]],\n'
        '\n'
        '        [[80.         , 80.33333333 , 80.66666667 , ..., 85.66666667 ,\n'
        '          86.         , 86.33333333 ],\n'
        '         [86.66666667 , 87.         , 87.33333333 , ..., 92.33333333 ,\n'
        '          92.66666667 , 93.         ],\n'
        '         [93.33333333 , 93.66666667 , 94.         , ..., 99.         ,\n'
        '          99.33333333 , 99.66666667 ],\n'
        '         ...,\n'
        '         [140.        , 140.33333333, 140.66666667, ..., 145.66666667,\n'
        '          146.        , 146.33333333],\n'
        '         [146.66666667, 147.        , 147.33333333, ..., 152.33333333,\n'
        '          152.66666667, 153.        ],\n'
        '         [153.33333333, 153.66666667, 154.        , ..., 159.        ,\n'
        '          159.33333333, 159.66666667]],\n'
        '\n'
        '        [[160.        , 160.33333333, 160.66666667, ..., 165.66666667,\n'
        '          166.        , 166.33333333],\n'
        '         [166.66666667, 167.        , 167.33333333, ..., 172.33333333,\n'
        '          172.66666667, 173.        ],\n'
        '         [173.33333333, 173.66666667, 174.        , ..., 179.        ,\n'
        '          179.33333333, 179.66666667],\n'
        '         ...,\n'
        '         [220.        , 220.33333333, 220.66666667, ..., 225.66666667,\n'
        '          226.        , 226.33333333],\n'
        '         [226.66666667, 227.        , 227.33333333, ..., 232.33333333,\n'
        '          232.66666667, 233.        ],\n'
        '         [233.33333333, 233.66666667, 234.        , ..., 239.        ,\n'
        '          239.33333333, 239.66666667]],\n'
        '\n'
        '        ...,\n'
        '\n'
        '        [[560.        , 560.33333333, 560.66666667, ..., 565.66666667,\n'
        '          566.        , 566.33333333],\n'
        '         [566.66666667, 567.        , 567.33333333, ..., 572.33333333,\n'
        '          572.66666667, 573.        ],\n'
        '         [573.33333333, 573.66666667, 574.        , ..., 579.        ,\n'
        '          579.33333333, 579.66666667],\n'
        '         ...,\n'
        '         [620.        , 620.33333333, 620.66666667, ..., 625.66666667,\n'
        '          626.        , 626.33333333],\n'
        '         [626.66666667, 627.        , 627.33333333, ..., 632.33333333,\n'
        '          632.66666667, 633.        ],\n'
        '         [633.33333333, 633.66666667, 634.        , ..., 639.        ,\n'
        '          639.33333333, 639.66666667]],\n'
        '\n'
        '        [[640.        , 640.33333333, 640.66666667, ..., 645.66666667,\n'
        '          646.        , 646.33333333],\n'
        '         [646.66666667, 647.        , 647.33333333, ..., 652.33333333,\n'
        '          652.66666667, 653.        ],\n'
        '         [653.33333333, 653.66666667, 654.        , ..., 659.        ,\n'
        '          659.33333333, 659.66666667],\n'
        '         ...,\n'
        '         [700.        , 700.33333333, 700.66666667, ..., 705.66666667,\n'
        '          706.        , 706.33333333],\n'
        '         [706.66666667, 707.        , 707.33333333, ..., 712.33333333,\n'
        '          712.66666667, 713.        ],\n'
        '         [713.33333333, 713.66666667, 714.        , ..., 719.        ,\n'
        '          719.33333333, 719.66666667]],\n'
        '\n'
        '        [[720.        , 720.33333333, 720.66666667, ..., 725.66666667,\n'
        '          726.        , 726.33333333],\n'
        '         [726.66666667, 727.        , 727.33333333, ..., 732.33333333,\n'
        '          732.66666667, 733.        ],\n'
        '         [733.33333333, 733.66666667, 734.        , ..., 739.        ,\n'
        '          739.33333333, 739.66666667],\n'
        '         ...,\n'
        '         [780.        , 780.33333333, 780.66666667, ..., 785.66666667,\n'
        '          786.        , 786.33333333],\n'
        '         [786.66666667, 787.        , 787.33333333, ..., 792.33333333,\n'
        '          792.66666667, 793.        ],\n'
        '         [793.33333333, 793.66666667, 794.        , ..., 799.        ,\n'
        '          799.33333333, 799.66666667]]])'),
    'extreme': (lambda: T([1e-10, 1e10]),
        '[2]', 'float32', True, '       [0.00000000  , 10000000000.])'),
    'nan_inf': (lambda: T([float('nan'), float('inf'), -float('inf'), 1.5]),
        '[4]', 'float32', True, '       [ nan      ,  inf.     , -inf.     , 1.50000000])'),
    'mixed2d': (lambda: T([[1.5, -2], [3, 4]]),
        '[2, 2]', 'float32', True,
        '       [[1.50000000, -2.       ],\n'
        '        [ 3.       ,  4.       ]])'),
    'wrap': (lambda: paddle.arange(30).astype('float32') / 7,
        '[30]', 'float32', True,
        '       [0.        , 0.14285715, 0.28571430, 0.42857143, 0.57142860, 0.71428573,\n'
        '        0.85714287, 1.        , 1.14285719, 1.28571427, 1.42857146, 1.57142854,\n'
        '        1.71428573, 1.85714281, 2.        , 2.14285707, 2.28571439, 2.42857146,\n'
        '        2.57142854, 2.71428561, 2.85714293, 3.        , 3.14285707, 3.28571439,\n'
        '        3.42857146, 3.57142854, 3.71428561, 3.85714293, 4.        , 4.14285707])'),
    'int3d': (lambda: T(np.arange(24).reshape(2, 3, 4)),
        '[2, 3, 4]', 'int64', True,
        '       [[[0 , 1 , 2 , 3 ],\n'
        '         [4 , 5 , 6 , 7 ],\n'
        '         [8 , 9 , 10, 11]],\n'
        '\n'
        '        [[12, 13, 14, 15],\n'
        '         [16, 17, 18, 19],\n'
        '         [20, 21, 22, 23]]])'),
    'uint8': (lambda: T([1, 2], dtype='uint8'),
        '[2]', 'uint8', True, '       [1, 2])'),
    'int8neg': (lambda: T([-1, 2], dtype='int8'),
        '[2]', 'int8', True, '       [-1,  2])'),
    'grad': (lambda: T([1., 2.], stop_gradient=False) * 2,
        '[2]', 'float32', False, '       [2., 4.])'),
}

# name: (options, builder, values text as Paddle printed it)
OPTION_CASES = {
    'opt_prec4': (dict(precision=4), lambda: T([1.123456, 2.5, 3.]),
        '       [1.1235, 2.5000, 3.    ])'),
    'opt_sci': (dict(sci_mode=True), lambda: T([1.5, 0.00001, 3.]),
        '       [1.50000000e+00, 9.99999975e-06, 3.00000000e+00])'),
    'opt_sci_prec2': (dict(sci_mode=True, precision=2), lambda: T([[1.5, -2000.], [3, 4]]),
        '       [[ 1.50e+00, -2.00e+03],\n        [ 3.00e+00,  4.00e+00]])'),
    'opt_sci_complex': (dict(sci_mode=True, precision=3), lambda: T([1+2j, 3.5-1j]),
        '       [(1.000e+00+2.000e+00j), (3.500e+00-1.000e+00j)])'),
    'opt_threshold': (dict(threshold=5, edgeitems=2), lambda: paddle.arange(10),
        '       [0, 1, ..., 8, 9])'),
    'opt_threshold2d': (dict(threshold=10, edgeitems=1),
                        lambda: T(np.arange(30.).reshape(5, 6) / 4),

        '       [[0.        , ..., 1.25000000],\n'
        '        ...,\n'
        '        [6.        , ..., 7.25000000]])'),
    'opt_linewidth': (dict(linewidth=30), lambda: paddle.arange(12).astype('float32') / 3,

        '       [0.        ,\n'
        '        0.33333334,\n'
        '        0.66666669,\n'
        '        1.        ,\n'
        '        1.33333337,\n'
        '        1.66666663,\n'
        '        2.        ,\n'
        '        2.33333325,\n'
        '        2.66666675,\n'
        '        3.        ,\n'
        '        3.33333325,\n'
        '        3.66666675])'),
    'opt_linewidth_int': (dict(linewidth=20), lambda: paddle.arange(20),

        '       [0 , 1 , 2 ,\n'
        '        3 , 4 , 5 ,\n'
        '        6 , 7 , 8 ,\n'
        '        9 , 10, 11,\n'
        '        12, 13, 14,\n'
        '        15, 16, 17,\n'
        '        18, 19])'),
    'opt_sci_int': (dict(sci_mode=True), lambda: paddle.arange(3),
        '       [0, 1, 2])'),
}

DEFAULTS = dict(precision=8, threshold=1000, edgeitems=3, sci_mode=False, linewidth=80)


@pytest.fixture
def restore_options():
    yield
    paddle.set_printoptions(**DEFAULTS)


@pytest.mark.parametrize("name", sorted(CASES))
def test_print_matches_paddle(name):
    build, shape, dtype, stop_gradient, values = CASES[name]
    expected = HEAD.format(shape, dtype, stop_gradient) + "\n" + values
    assert str(build()) == expected
    assert repr(build()) == expected


@pytest.mark.parametrize("name", sorted(OPTION_CASES))
def test_printoptions_match_paddle(name, restore_options):
    options, build, values = OPTION_CASES[name]
    paddle.set_printoptions(**options)
    assert str(build()).split("\n", 1)[1] == values


def test_large_3d_summary_shape_of_output():
    x = T(np.arange(2400.).reshape(10, 12, 20) / 3)
    lines = str(x).split("\n")
    # Paddle 3.3.1: 3 + 3 blocks of 3 + 3 rows, each row wrapped onto two lines
    assert lines[1] == ("       [[[0.          , 0.33333333  , 0.66666667  , ..., "
                        "5.66666667  ,")
    assert lines[2] == "          6.          , 6.33333333  ],"
    assert lines[-1] == "          799.33333333, 799.66666667]]])"
    assert lines.count("") == 6 and "        ...," in lines


def test_parameter_prefix():
    p = paddle.create_parameter([2], "float32",
                                default_initializer=paddle.nn.initializer.Constant(0.5))
    assert str(p) == ("Parameter containing:\n"
                      "Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=False,\n"
                      "       [0.50000000, 0.50000000])")


def test_width_comes_from_edge_items_only():
    # Paddle measures the column on the summary's edge items even when nothing is elided.
    assert str(T([1, 1, 1, 1000, 1, 1, 1])).endswith("[1, 1, 1, 1000, 1, 1, 1])")


@pytest.mark.parametrize("options, message", [
    (dict(precision=2.5), "'precision' must be int, got 2.5"),
    (dict(threshold="a"), "'threshold' must be int, got 'a'"),
    (dict(sci_mode=1), "'sci_mode' must be bool, got 1"),
    (dict(edgeitems=1.0), "'edgeitems' must be int, got 1.0"),
])
def test_set_printoptions_rejects_bad_types(options, message, restore_options):
    with pytest.raises(TypeError, match=message):
        paddle.set_printoptions(**options)
    assert printing._OPTIONS == DEFAULTS  # nothing half-applied


def test_set_printoptions_rejects_negative(restore_options):
    with pytest.raises(ValueError, match="'linewidth' must be >= 0"):
        paddle.set_printoptions(precision=3, linewidth=-1)
    assert printing._OPTIONS["precision"] == 8
