"""Cases for the top-level `paddle.*` names no other test exercised (mostly in-place variants).

Each case is a snippet run with `paddle` bound to the framework under test and `np` to NumPy; it
sets `out` (a tensor, a Python value, or a tuple of them). record_paddle.py runs the snippets on
Paddle 3.3.1 and writes the results to paddle_values.py; test_untested_paddle.py runs them on
sampan and compares. A case id ending in "~random" is checked for dtype/shape only.
"""

PRE = ("x = paddle.to_tensor([[0.2, 0.5], [0.7, 0.9]])\n"
       "y = paddle.to_tensor([[1.5, 2.0], [0.5, 3.0]])\n"
       "i = paddle.to_tensor([[6, 8], [-9, 15]])\n"
       "j = paddle.to_tensor([[4, 3], [6, 10]])\n")

CASES = {}

# In-place unary functions: the returned tensor and the input after the call.
for _name in ["abs_", "acos_", "atan_", "cos_", "digamma_", "erf_", "expm1_", "frac_",
              "i0_", "lgamma_", "log10_", "log2_", "log_", "neg_", "sin_", "sinh_",
              "square_", "tan_", "trunc_", "t_", "tril_", "triu_", "logical_not_"]:
    CASES["paddle." + _name] = f"r = paddle.{_name}(x)\nout = (r, x)"

# In-place binary functions on floats.
for _name in ["divide_", "multiply_", "hypot_", "remainder_", "mod_",
              "floor_mod_", "floor_divide_", "equal_", "greater_equal_", "greater_than_",
              "less_equal_", "less_than_", "logical_and_", "logical_or_"]:
    CASES["paddle." + _name] = f"r = paddle.{_name}(y, x)\nout = (r, y)"

# In-place binary functions on integers.
for _name in ["gcd_", "lcm_"]:
    CASES["paddle." + _name] = f"r = paddle.{_name}(i, j)\nout = (r, i)"

CASES.update({
    "paddle.addmm_": "r = paddle.addmm_(x, y, y, beta=0.5, alpha=2.0)\nout = (r, x)",
    "paddle.pow_": "r = paddle.pow_(y, 2.0)\nout = (r, y)",
    "paddle.cast_": "r = paddle.cast_(x, 'float64')\nout = (r, x)",
    "paddle.cumprod_": "r = paddle.cumprod_(y, dim=1)\nout = (r, y)",
    "paddle.cumsum_": "r = paddle.cumsum_(y, axis=0)\nout = (r, y)",
    "paddle.index_add_": ("r = paddle.index_add_(x, paddle.to_tensor([1]), 0, "
                          "paddle.to_tensor([[10.0, 20.0]]))\nout = (r, x)"),
    "paddle.index_fill_": "r = paddle.index_fill_(x, paddle.to_tensor([0]), 1, -1.0)\nout = (r, x)",
    "paddle.index_put_": ("r = paddle.index_put_(x, (paddle.to_tensor([0, 1]), "
                          "paddle.to_tensor([1, 0])), paddle.to_tensor([5.0, 6.0]))\n"
                          "out = (r, x)"),
    "paddle.ldexp_": ("a = paddle.to_tensor([1.0, 2.0, 3.0])\n"
                      "r = paddle.ldexp_(a, paddle.to_tensor([2, 3, -1]))\nout = (r, a)"),
    "paddle.masked_fill_": "r = paddle.masked_fill_(x, x > 0.6, 9.0)\nout = (r, x)",
    "paddle.multigammaln_": "r = paddle.multigammaln_(y + 2.0, 2)\nout = r",
    "paddle.nan_to_num_": ("a = paddle.to_tensor([float('nan'), float('inf'), -float('inf'), 1.0])\n"
                           "r = paddle.nan_to_num_(a, nan=0.5, posinf=9.0, neginf=-9.0)\n"
                           "out = (r, a)"),
    "paddle.polygamma_": "r = paddle.polygamma_(y, 1)\nout = (r, y)",
    "paddle.renorm_": "r = paddle.renorm_(y, p=2, axis=0, max_norm=1.0)\nout = (r, y)",
    "paddle.scatter_": ("r = paddle.scatter_(y, paddle.to_tensor([1]), "
                        "paddle.to_tensor([[7.0, 8.0]]))\nout = (r, y)"),
    "paddle.cauchy_~random": ("paddle.seed(1)\na = paddle.zeros([3, 4])\n"
                              "r = paddle.cauchy_(a, loc=1.0, scale=2.0)\n"
                              "out = (r, bool((a != 0).all()))"),
    "paddle.geometric_~random": ("paddle.seed(1)\na = paddle.zeros([200])\n"
                                 "r = paddle.geometric_(a, 0.5)\n"
                                 "out = (r, bool((a >= 1).all()), bool((a == a.round()).all()))"),
    "paddle.normal_~random": ("paddle.seed(1)\na = paddle.zeros([2000])\n"
                              "r = paddle.normal_(a, mean=3.0, std=0.5)\n"
                              "out = (r, bool(abs(float(a.mean()) - 3.0) < 0.05), "
                              "bool(abs(float(a.std()) - 0.5) < 0.05))"),
})
