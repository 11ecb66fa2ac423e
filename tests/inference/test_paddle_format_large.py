"""Full-size resnet18 and mobilenet_v2 exported by PaddlePaddle 3.3.1 (too big to commit).
Make them with `/work/pdenv/bin/python tests/inference/fixtures/make_fixtures.py --large DIR`
and point SAMPAN_PADDLE_MODELS at DIR; skipped otherwise."""
import os

import numpy as np
import pytest

from sampan.inference.paddle_format import load_paddle_model
from sampan.static.executor import Executor, Scope, scope_guard

DIR = os.environ.get("SAMPAN_PADDLE_MODELS", "")
CASES = [(fmt, name) for fmt in ("legacy", "pir") for name in ("resnet18", "mobilenet_v2")]


@pytest.mark.parametrize("fmt,name", CASES)
def test_full_size_model_matches_paddle(fmt, name):
    ext = ".pdmodel" if fmt == "legacy" else ".json"
    model = os.path.join(DIR, fmt, name + ext)
    if not DIR or not os.path.exists(model):
        pytest.skip("set SAMPAN_PADDLE_MODELS to a directory made by make_fixtures.py --large")
    params = os.path.join(DIR, fmt, name + ".pdiparams")
    if not os.path.exists(params):
        params = os.path.join(DIR, "legacy", name + ".pdiparams")
    program, feeds, fetches, values = load_paddle_model(model, params)
    scope = Scope()
    for k, v in values.items():
        scope.set(k, v)
    x = np.load(os.path.join(DIR, name + ".input.npy"))
    with scope_guard(scope):
        out, = Executor().run(program, feed={feeds[0]: x}, fetch_list=fetches)
    ref = np.load(os.path.join(DIR, fmt, name + ".output0.npy"))
    scale = max(1.0, float(np.abs(ref).max()))
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5 * scale)
