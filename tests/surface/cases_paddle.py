"""Cases for the top-level `paddle.*` names no other test exercised (mostly in-place variants).

Each case is a snippet run with `paddle` bound to the framework under test and `np` to NumPy; it
sets `out` (a tensor, a Python value, or a tuple of them). record_paddle.py runs the snippets on
Paddle 3.3.1 and writes the results to paddle_values.py; test_untested_paddle.py runs them on
sampan and compares. A case id ending in "~random" is checked for dtype/shape only.
"""

PRE = ('x = paddle.to_tensor([[0.2, 0.5], [0.7, 0.9]])\n'
       'y = paddle.to_tensor([[1.5, 2.0], [0.5, 3.0]])\n'
       'i = paddle.to_tensor([[6, 8], [-9, 15]])\n'
       'j = paddle.to_tensor([[4, 3], [6, 10]])\n')

CASES = {
    'paddle.divide_-int': ('a = paddle.to_tensor([1, 2, 3])\n'
                           'r = paddle.divide_(a, paddle.to_tensor([2, 2, 2]))\n'
                           'out = (r, a)'),
    'paddle.multiply_-float64-y': ('a = paddle.to_tensor([1.0, 2.0])\n'
                                   "r = a.multiply_(paddle.to_tensor([3.0, 4.0], "
                                   "dtype='float64'))\n"
                                   'out = (r, a)'),
    'paddle.exp_-int': "a = paddle.to_tensor([1, 2])\nr = a.exp_()\nout = (r, a)",
    'paddle.abs_': ('r = paddle.abs_(x)\n'
                    'out = (r, x)'),
    'paddle.acos_': ('r = paddle.acos_(x)\n'
                     'out = (r, x)'),
    'paddle.atan_': ('r = paddle.atan_(x)\n'
                     'out = (r, x)'),
    'paddle.cos_': ('r = paddle.cos_(x)\n'
                    'out = (r, x)'),
    'paddle.digamma_': ('r = paddle.digamma_(x)\n'
                        'out = (r, x)'),
    'paddle.erf_': ('r = paddle.erf_(x)\n'
                    'out = (r, x)'),
    'paddle.expm1_': ('r = paddle.expm1_(x)\n'
                      'out = (r, x)'),
    'paddle.frac_': ('r = paddle.frac_(x)\n'
                     'out = (r, x)'),
    'paddle.i0_': ('r = paddle.i0_(x)\n'
                   'out = (r, x)'),
    'paddle.lgamma_': ('r = paddle.lgamma_(x)\n'
                       'out = (r, x)'),
    'paddle.log10_': ('r = paddle.log10_(x)\n'
                      'out = (r, x)'),
    'paddle.log2_': ('r = paddle.log2_(x)\n'
                     'out = (r, x)'),
    'paddle.log_': ('r = paddle.log_(x)\n'
                    'out = (r, x)'),
    'paddle.neg_': ('r = paddle.neg_(x)\n'
                    'out = (r, x)'),
    'paddle.sin_': ('r = paddle.sin_(x)\n'
                    'out = (r, x)'),
    'paddle.sinh_': ('r = paddle.sinh_(x)\n'
                     'out = (r, x)'),
    'paddle.square_': ('r = paddle.square_(x)\n'
                       'out = (r, x)'),
    'paddle.tan_': ('r = paddle.tan_(x)\n'
                    'out = (r, x)'),
    'paddle.trunc_': ('r = paddle.trunc_(x)\n'
                      'out = (r, x)'),
    'paddle.t_': ('r = paddle.t_(x)\n'
                  'out = (r, x)'),
    'paddle.tril_': ('r = paddle.tril_(x)\n'
                     'out = (r, x)'),
    'paddle.triu_': ('r = paddle.triu_(x)\n'
                     'out = (r, x)'),
    'paddle.logical_not_': ('r = paddle.logical_not_(x)\n'
                            'out = (r, x)'),
    'paddle.divide_': ('r = paddle.divide_(y, x)\n'
                       'out = (r, y)'),
    'paddle.multiply_': ('r = paddle.multiply_(y, x)\n'
                         'out = (r, y)'),
    'paddle.hypot_': ('r = paddle.hypot_(y, x)\n'
                      'out = (r, y)'),
    'paddle.remainder_': ('r = paddle.remainder_(y, x)\n'
                          'out = (r, y)'),
    'paddle.mod_': ('r = paddle.mod_(y, x)\n'
                    'out = (r, y)'),
    'paddle.floor_mod_': ('r = paddle.floor_mod_(y, x)\n'
                          'out = (r, y)'),
    'paddle.floor_divide_': ('r = paddle.floor_divide_(y, x)\n'
                             'out = (r, y)'),
    'paddle.equal_': ('r = paddle.equal_(y, x)\n'
                      'out = (r, y)'),
    'paddle.greater_equal_': ('r = paddle.greater_equal_(y, x)\n'
                              'out = (r, y)'),
    'paddle.greater_than_': ('r = paddle.greater_than_(y, x)\n'
                             'out = (r, y)'),
    'paddle.less_equal_': ('r = paddle.less_equal_(y, x)\n'
                           'out = (r, y)'),
    'paddle.less_than_': ('r = paddle.less_than_(y, x)\n'
                          'out = (r, y)'),
    'paddle.logical_and_': ('r = paddle.logical_and_(y, x)\n'
                            'out = (r, y)'),
    'paddle.logical_or_': ('r = paddle.logical_or_(y, x)\n'
                           'out = (r, y)'),
    'paddle.gcd_': ('r = paddle.gcd_(i, j)\n'
                    'out = (r, i)'),
    'paddle.lcm_': ('r = paddle.lcm_(i, j)\n'
                    'out = (r, i)'),
    'paddle.addmm_': ('r = paddle.addmm_(x, y, y, beta=0.5, alpha=2.0)\n'
                      'out = (r, x)'),
    'paddle.pow_': ('r = paddle.pow_(y, 2.0)\n'
                    'out = (r, y)'),
    'paddle.cast_': ("r = paddle.cast_(x, 'float64')\n"
                     'out = (r, x)'),
    'paddle.cumprod_': ('r = paddle.cumprod_(y, dim=1)\n'
                        'out = (r, y)'),
    'paddle.cumsum_': ('r = paddle.cumsum_(y, axis=0)\n'
                       'out = (r, y)'),
    'paddle.index_add_': ('r = paddle.index_add_(x, paddle.to_tensor([1]), 0, '
                          'paddle.to_tensor([[10.0, 20.0]]))\n'
                          'out = (r, x)'),
    'paddle.index_fill_': ('r = paddle.index_fill_(x, paddle.to_tensor([0]), 1, -1.0)\n'
                           'out = (r, x)'),
    'paddle.index_put_': ('r = paddle.index_put_(x, (paddle.to_tensor([0, 1]), '
                          'paddle.to_tensor([1, 0])), paddle.to_tensor([5.0, 6.0]))\n'
                          'out = (r, x)'),
    'paddle.ldexp_': ('a = paddle.to_tensor([1.0, 2.0, 3.0])\n'
                      'r = paddle.ldexp_(a, paddle.to_tensor([2, 3, -1]))\n'
                      'out = (r, a)'),
    'paddle.masked_fill_': ('r = paddle.masked_fill_(x, x > 0.6, 9.0)\n'
                            'out = (r, x)'),
    'paddle.multigammaln_': ('r = paddle.multigammaln_(y + 2.0, 2)\n'
                             'out = r'),
    'paddle.nan_to_num_': ("a = paddle.to_tensor([float('nan'), float('inf'), -float('inf'), "
                           "1.0])\n"
                           'r = paddle.nan_to_num_(a, nan=0.5, posinf=9.0, neginf=-9.0)\n'
                           'out = (r, a)'),
    'paddle.polygamma_': ('r = paddle.polygamma_(y, 1)\n'
                          'out = (r, y)'),
    'paddle.renorm_': ('r = paddle.renorm_(y, p=2, axis=0, max_norm=1.0)\n'
                       'out = (r, y)'),
    'paddle.scatter_': ('r = paddle.scatter_(y, paddle.to_tensor([1]), paddle.to_tensor([[7.0, '
                        '8.0]]))\n'
                        'out = (r, y)'),
    'paddle.cauchy_~random': ('paddle.seed(1)\n'
                              'a = paddle.zeros([3, 4])\n'
                              'r = paddle.cauchy_(a, loc=1.0, scale=2.0)\n'
                              'out = (r, bool((a != 0).all()))'),
    'paddle.geometric_~random': ('paddle.seed(1)\n'
                                 'a = paddle.zeros([200])\n'
                                 'r = paddle.geometric_(a, 0.5)\n'
                                 'out = (r, bool((a >= 1).all()), bool((a == a.round()).all()))'),
    'paddle.normal_~random': ('paddle.seed(1)\n'
                              'a = paddle.zeros([2000])\n'
                              'r = paddle.normal_(a, mean=3.0, std=0.5)\n'
                              'out = (r, bool(abs(float(a.mean()) - 3.0) < 0.05), '
                              'bool(abs(float(a.std()) - 0.5) < 0.05))'),
}
