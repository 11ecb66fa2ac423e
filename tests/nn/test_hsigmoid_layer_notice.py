"""HSigmoidLoss prints Paddle 3.3.1's construction notices."""
import sampan as paddle

PREFETCH = "With sparse mode, if your models has only small parameter prefetch may cause speed down"


def test_notice_on_construction(capsys):
    paddle.nn.HSigmoidLoss(3, 6)
    assert capsys.readouterr().out == PREFETCH + "\n"


def test_sparse_without_custom_tree_is_dropped_with_a_notice(capsys):
    layer = paddle.nn.HSigmoidLoss(3, 6, is_sparse=True)
    out = capsys.readouterr().out
    assert out == "Sparse mode should not be used without custom tree\n" + PREFETCH + "\n"
    assert layer._is_sparse is False
