"""paddle.text.viterbi_decode and ViterbiDecoder over the `viterbi_decode` op (ops/text_ops.py)."""
from __future__ import annotations

from ..framework.tensor import Tensor
from ..nn.layer.layers import Layer
from ..ops import text_ops  # noqa: F401  (registers the viterbi_decode op)
from ..ops.dispatch import call

__all__ = ["viterbi_decode", "ViterbiDecoder"]


def viterbi_decode(potentials: Tensor, transition_params: Tensor, lengths: Tensor,
                   include_bos_eos_tag: bool = True, name: str | None = None) -> tuple:
    """Decode the highest scoring tag sequence from emissions and transitions (Viterbi).

    Args:
        potentials (Tensor): emission scores [batch_size, sequence_length, num_tags],
            float32 or float64.
        transition_params (Tensor): transition scores [num_tags, num_tags]; entry [j, k]
            scores tag j followed by tag k. Same dtype as potentials.
        lengths (Tensor): int64 [batch_size], each row's length (0..sequence_length).
        include_bos_eos_tag (bool, optional): treat the last row of transition_params as
            start scores and the second to last row as stop scores. Default: True.
        name (str, optional): unused; for Paddle compatibility. Default: None.

    Returns:
        tuple(Tensor, Tensor): scores [batch_size] (potentials' dtype) and paths
        [batch_size, max(lengths)] int64, zero past each row's length.

    Examples:
        >>> import sampan as paddle
        >>> emission = paddle.to_tensor([[[1.0, 0.0], [0.0, 2.0], [3.0, 0.0]]])
        >>> transition = paddle.to_tensor([[0.0, -1.0], [-5.0, 0.0]])
        >>> scores, path = paddle.text.viterbi_decode(emission, transition,
        ...                                           paddle.to_tensor([3]), False)
        >>> scores.numpy().tolist(), path.numpy().tolist()
        ([4.0], [[0, 0, 0]])
    """
    if not isinstance(include_bos_eos_tag, bool):
        raise TypeError(f"viterbi_decode: include_bos_eos_tag must be a bool, got "
                        f"{type(include_bos_eos_tag).__name__}")
    return call("viterbi_decode", potentials, transition_params, lengths,
                include_bos_eos_tag=include_bos_eos_tag)


class ViterbiDecoder(Layer):
    """A Layer holding transitions; forward(potentials, lengths) calls viterbi_decode.

    Args:
        transitions (Tensor): [num_tags, num_tags] transition scores.
        include_bos_eos_tag (bool, optional): see viterbi_decode. Default: True.
        name (str, optional): unused. Default: None.

    Examples:
        >>> import sampan as paddle
        >>> decoder = paddle.text.ViterbiDecoder(paddle.to_tensor([[0.0, -1.0], [-5.0, 0.0]]),
        ...                                      include_bos_eos_tag=False)
        >>> scores, path = decoder(paddle.to_tensor([[[0.0, 1.0], [2.0, 0.0]]]),
        ...                        paddle.to_tensor([2]))
        >>> path.numpy().tolist()
        [[0, 0]]
    """

    def __init__(self, transitions: Tensor, include_bos_eos_tag: bool = True,
                 name: str | None = None) -> None:
        super().__init__()
        self.transitions = transitions
        self.include_bos_eos_tag = include_bos_eos_tag
        self.name = name

    def forward(self, potentials: Tensor, lengths: Tensor) -> tuple:
        return viterbi_decode(potentials, self.transitions, lengths, self.include_bos_eos_tag,
                              self.name)
