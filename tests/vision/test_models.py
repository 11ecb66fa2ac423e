"""paddle.vision.models: every zoo model has Paddle 3.3.1's state_dict keys, shapes and
parameter counts (recorded from Paddle below), one forward per family, pretrained loading."""
import hashlib
import os

import numpy as np
import pytest

import sampan as paddle
from sampan.initializer.base import Initializer
from sampan.vision import models

# (function, kwargs, number of state_dict entries, total parameter elements (BN statistics
# included, as Paddle counts them), sha256[:16] of the sorted "key:shape" lines), recorded
# from paddle.vision.models of PaddlePaddle 3.3.1.
PADDLE_MODELS = [
    ('resnet18', {}, 102, 11699112, '55026671c7aca2bf'),
    ('resnet34', {}, 182, 21814696, '8912f94ada292150'),
    ('resnet50', {}, 267, 25610152, 'fed804a6391d24f5'),
    ('resnet101', {}, 522, 44654504, 'a5de49c9a61045db'),
    ('resnet152', {}, 777, 60344232, '752b0d22fd8eac1a'),
    ('resnext50_32x4d', {}, 267, 25097128, '9af6c33491290d11'),
    ('resnext50_64x4d', {}, 267, 45290920, 'cf09e66186f6c8d4'),
    ('resnext101_32x4d', {}, 522, 44315560, '7745d786b8772350'),
    ('resnext101_64x4d', {}, 522, 83658152, '900f0b1064f9dc3d'),
    ('resnext152_32x4d', {}, 777, 60150696, '7b5e72e2765d5bda'),
    ('resnext152_64x4d', {}, 777, 115266984, '9eac827aa58f2761'),
    ('wide_resnet50_2', {}, 267, 68951464, 'a4ae65ad4c0c6681'),
    ('wide_resnet101_2', {}, 522, 127024552, 'e5a036730938da4c'),
    ('vgg11', {}, 22, 132863336, '38de79586e22ee98'),
    ('vgg13', {}, 26, 133047848, '6e629b6028418793'),
    ('vgg16', {}, 32, 138357544, '56baef7657adf5f4'),
    ('vgg19', {}, 38, 143667240, '4e33b9bcfea700c3'),
    ('mobilenet_v1', {}, 137, 4253864, '67d9c481eacfd1f1'),
    ('mobilenet_v2', {}, 262, 3538984, '4340bfebeeebd375'),
    ('mobilenet_v3_small', {}, 210, 2554968, 'cf7fe3df0768c119'),
    ('mobilenet_v3_large', {}, 266, 5507432, '784660a03ca572ad'),
    ('densenet121', {}, 606, 8062504, '0122101cc1076633'),
    ('densenet161', {}, 806, 28900936, 'c7486b0d7ef88206'),
    ('densenet169', {}, 846, 14307880, '9fcef2aa012727f0'),
    ('densenet201', {}, 1006, 20242984, 'b31191363ecbfc1b'),
    ('densenet264', {}, 1326, 33736232, '001b2ac0f26b4c93'),
    ('alexnet', {}, 16, 61100840, 'db760301f3606cfa'),
    ('inception_v3', {}, 472, 23869000, '90cadbcaaa2fb78b'),
    ('squeezenet1_0', {}, 52, 1248424, 'b4ebf99d9a0e01a2'),
    ('squeezenet1_1', {}, 52, 1235496, '80eb527c58200cf7'),
    ('googlenet', {}, 69, 11535736, '6100eb81517360f2'),
    ('shufflenet_v2_x0_25', {}, 282, 607712, 'aa52acded9d44afa'),
    ('shufflenet_v2_x0_33', {}, 282, 652264, '03f4765d6d606b64'),
    ('shufflenet_v2_x0_5', {}, 282, 1374744, '8af33144727e87a0'),
    ('shufflenet_v2_x1_0', {}, 282, 2294784, 'db71b6735a0e0eae'),
    ('shufflenet_v2_x1_5', {}, 282, 3527064, '7dca271152d24cb9'),
    ('shufflenet_v2_x2_0', {}, 282, 7399952, '51c64be7542f7fef'),
    ('shufflenet_v2_swish', {}, 282, 2294784, 'db71b6735a0e0eae'),
    ('vgg11', {'batch_norm': True}, 54, 132874344, '7ad20ad3eb14566d'),
    ('vgg13', {'batch_norm': True}, 66, 133059624, '0a6eac28fbbc1f2e'),
    ('vgg16', {'batch_norm': True}, 84, 138374440, 'a52f36e3dbe947b8'),
    ('vgg19', {'batch_norm': True}, 102, 143689256, 'afb8d498f439db14'),
    ('mobilenet_v1', {'scale': 0.5}, 137, 1342536, '29d939ccc3c6561b'),
    ('mobilenet_v2', {'scale': 0.5}, 262, 1987224, 'af25d07a2c768f45'),
    ('mobilenet_v3_small', {'scale': 0.75}, 210, 1663120, '63819f6b5b4974bb'),
    ('mobilenet_v3_large', {'scale': 0.75}, 266, 3395992, 'f0930dffe59b4a9e'),
    ('resnet18', {'num_classes': 0, 'with_pool': False}, 100, 11186112, '96b9d8820f303fe0'),
    ('googlenet', {'num_classes': 10}, 69, 8491486, '7f6126e91612cd9c'),
    ('densenet121', {'num_classes': 10}, 606, 7047754, 'fdb6077eb0c09070'),
]


@pytest.fixture
def shape_only_init(monkeypatch):
    """Skip drawing initial values: the structure does not depend on them, and drawing 1.5
    billion numbers for the whole zoo would take a minute."""
    monkeypatch.setattr(Initializer, "forward", lambda self, param, block=None: param)


def _digest(state_dict) -> str:
    lines = "\n".join(f"{k}:{list(v.shape)}" for k, v in sorted(state_dict.items()))
    return hashlib.sha256(lines.encode()).hexdigest()[:16]


@pytest.mark.parametrize("fn,kwargs,n_keys,n_params,digest", PADDLE_MODELS,
                         ids=[f"{r[0]}{r[1] or ''}" for r in PADDLE_MODELS])
def test_parameters_match_paddle(shape_only_init, fn, kwargs, n_keys, n_params, digest):
    model = getattr(models, fn)(**kwargs)
    sd = model.state_dict()
    assert len(sd) == n_keys
    assert sum(int(np.prod(p.shape)) for p in model.parameters()) == n_params
    assert _digest(sd) == digest
    # every sublayer is reachable under its Paddle attribute name (no method shadows it)
    for name, layer in model.named_children():
        assert getattr(model, name) is layer


def test_every_paddle_model_function_is_covered():
    covered = {r[0] for r in PADDLE_MODELS}
    functions = {n for n in models.__all__ if n[0].islower()}
    assert functions == covered
    assert len(models.__all__) == 51


FORWARDS = [
    (lambda: models.LeNet(), [2, 1, 28, 28], [2, 10]),
    (lambda: models.resnet18(num_classes=7), [1, 3, 32, 32], [1, 7]),
    (lambda: models.resnext50_32x4d(num_classes=0, with_pool=False), [1, 3, 32, 32],
     [1, 2048, 1, 1]),
    (lambda: models.vgg11(batch_norm=True, num_classes=0), [1, 3, 32, 32], [1, 512, 7, 7]),
    (lambda: models.alexnet(num_classes=0), [1, 3, 64, 64], [1, 256, 1, 1]),
    (lambda: models.mobilenet_v1(scale=0.25, num_classes=5), [1, 3, 32, 32], [1, 5]),
    (lambda: models.mobilenet_v2(scale=0.35, num_classes=5), [1, 3, 32, 32], [1, 5]),
    (lambda: models.mobilenet_v3_small(scale=0.5, num_classes=5), [1, 3, 32, 32], [1, 5]),
    (lambda: models.mobilenet_v3_large(scale=0.5, num_classes=5), [1, 3, 32, 32], [1, 5]),
    (lambda: models.squeezenet1_0(num_classes=5), [1, 3, 64, 64], [1, 5]),
    (lambda: models.squeezenet1_1(num_classes=5), [1, 3, 64, 64], [1, 5]),
    (lambda: models.shufflenet_v2_x0_25(num_classes=5), [1, 3, 32, 32], [1, 5]),
    (lambda: models.shufflenet_v2_swish(num_classes=5), [1, 3, 32, 32], [1, 5]),
    (lambda: models.densenet121(num_classes=5), [1, 3, 32, 32], [1, 5]),
    (lambda: models.inception_v3(num_classes=5), [1, 3, 75, 75], [1, 5]),
]


@pytest.mark.parametrize("build,in_shape,out_shape", FORWARDS,
                         ids=[f"f{i}" for i in range(len(FORWARDS))])
def test_forward_shape(build, in_shape, out_shape):
    paddle.seed(1)
    model = build()
    model.eval()
    out = model(paddle.rand(in_shape))
    assert out.shape == out_shape
    assert np.isfinite(out.numpy()).all()


def test_googlenet_returns_main_and_auxiliary_heads():
    paddle.seed(1)
    model = models.googlenet(num_classes=4)
    model.eval()
    out, aux1, aux2 = model(paddle.rand([1, 3, 192, 192]))
    assert out.shape == aux1.shape == aux2.shape == [1, 4]


def test_resnet_trains_one_step():
    paddle.seed(2)
    model = models.resnet18(num_classes=3)
    opt = paddle.optimizer.SGD(0.1, parameters=model.parameters())
    x, y = paddle.rand([2, 3, 32, 32]), paddle.to_tensor([0, 2])
    loss = paddle.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    assert model.conv1.weight.grad is not None
    assert float(np.abs(model.conv1.weight.grad.numpy()).sum()) > 0
    opt.step()


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="depth"):
        models.ResNet(models.resnet.BasicBlock, depth=20)
    with pytest.raises(ValueError, match="1.2"):
        models.SqueezeNet('1.2')
    with pytest.raises(ValueError, match="121"):
        models.DenseNet(layers=100)
    with pytest.raises(NotImplementedError, match="0.7"):
        models.ShuffleNetV2(scale=0.7)


def test_pretrained_missing_file_names_path_and_url(shape_only_init, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError) as err:
        models.squeezenet1_1(pretrained=True)
    msg = str(err.value)
    assert os.path.join(str(tmp_path), ".cache", "paddle", "hapi", "weights",
                        "SqueezeNet1_1_pretrained.pdparams") in msg
    assert "https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/" \
           "SqueezeNet1_1_pretrained.pdparams" in msg
    with pytest.raises(ValueError, match="pretrained=False"):
        models.vgg11(pretrained=True)  # Paddle publishes no vgg11 weights


def test_pretrained_loads_the_cached_file(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    paddle.seed(3)
    source = models.squeezenet1_1()
    weights = tmp_path / ".cache" / "paddle" / "hapi" / "weights"
    weights.mkdir(parents=True)
    paddle.save(source.state_dict(), str(weights / "SqueezeNet1_1_pretrained.pdparams"))
    paddle.seed(4)
    model = models.squeezenet1_1(pretrained=True)
    for key, value in source.state_dict().items():
        np.testing.assert_array_equal(model.state_dict()[key].numpy(), value.numpy())


def _fill_deterministic(model):
    """The same weights Paddle got when the numbers below were recorded."""
    for i, (key, value) in enumerate(sorted(model.state_dict().items())):
        n = int(np.prod(value.shape))
        val = 0.05 * np.sin(0.7 * np.arange(n) + i)
        if key.endswith('_variance'):
            val = 1.0 + np.abs(val) * 10
        value.set_value(paddle.to_tensor(val.reshape(value.shape).astype('float32')))
    model.eval()
    return model


# first 8 outputs of Paddle 3.3.1 (eval mode) with _fill_deterministic weights and a cosine input
PADDLE_OUTPUTS = [
    ('LeNet', {}, [1, 1, 28, 28],
     [-0.116598, -0.075974, 0.000381, 0.076558, 0.116728, 0.101999, 0.039299, -0.041885]),
    ('resnet18', dict(num_classes=8), [1, 3, 32, 32],
     [0.048765, 0.012334, -0.029898, -0.058068, -0.058928, -0.032073, 0.009866, 0.047165]),
    ('mobilenet_v3_small', dict(num_classes=8), [1, 3, 32, 32],
     [-0.010969, -0.003717, 0.005284, 0.011799, 0.012766, 0.007728, -0.000944, -0.009172]),
    ('shufflenet_v2_swish', dict(num_classes=8), [1, 3, 32, 32],
     [-0.08423, -0.088531, -0.051194, 0.01022, 0.066827, 0.092005, 0.073911, 0.021056]),
    ('squeezenet1_1', dict(num_classes=8), [1, 3, 48, 48],
     [0.08459, 0.13555, 0.169005, 0.172932, 0.145876, 0.097611, 0.044736, 0.004302]),
]


@pytest.mark.parametrize("fn,kwargs,shape,expected", PADDLE_OUTPUTS,
                         ids=[r[0] for r in PADDLE_OUTPUTS])
def test_forward_matches_paddle(fn, kwargs, shape, expected):
    model = _fill_deterministic(getattr(models, fn)(**kwargs))
    x = np.cos(0.3 * np.arange(int(np.prod(shape)))).reshape(shape).astype('float32')
    out = model(paddle.to_tensor(x)).numpy().ravel()[:8]
    np.testing.assert_allclose(out, expected, atol=2e-6)
