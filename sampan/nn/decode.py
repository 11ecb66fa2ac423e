"""Step-wise decoding: paddle.nn.BeamSearchDecoder and paddle.nn.dynamic_decode.

Eager implementation of Paddle's decoding loop: dynamic_decode calls decoder.initialize,
then decoder.step until every sequence is finished (or max_step_num is passed), stacks the
per-step outputs along a new time axis and lets the decoder finalize them. Cell states,
inputs and outputs may be nested structures (lists, tuples, namedtuples, dicts) of Tensors.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable, NamedTuple

from .. import tensor as T
from ..framework.dtype import get_default_dtype
from ..framework.tensor import Tensor
from . import functional as F

__all__ = ["BeamSearchDecoder", "dynamic_decode"]


# --- nested structures ------------------------------------------------------------------

def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(x, "_fields")


def _flatten(structure) -> list:
    """The leaves of a nested list/tuple/namedtuple/dict, depth first (dicts by key order)."""
    if isinstance(structure, dict):
        return [leaf for key in structure for leaf in _flatten(structure[key])]
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in _flatten(item)]
    return [structure]


def _map_structure(fn: Callable, *structures):
    """fn applied leaf-wise to structures of the same nesting; the first one's types kept."""
    first = structures[0]
    if isinstance(first, dict):
        return type(first)((k, _map_structure(fn, *(s[k] for s in structures)))
                           for k in first)
    if isinstance(first, (list, tuple)):
        for s in structures[1:]:
            if not isinstance(s, (list, tuple)) or len(s) != len(first):
                raise ValueError(f"dynamic_decode: nested structures differ: {first!r} vs "
                                 f"{s!r}")
        items = [_map_structure(fn, *parts) for parts in zip(*structures)]
        if _is_namedtuple(first):
            return type(first)(*items)
        return type(first)(items)
    return fn(*structures)


# --- decoders ---------------------------------------------------------------------------

class Decoder:
    """Base class of the decoders driven by dynamic_decode.

    initialize(inits) -> (initial_inputs, initial_states, finished);
    step(time, inputs, states, **kwargs) -> (outputs, next_states, next_inputs, finished);
    finalize(outputs, final_states, sequence_lengths) -> (final_outputs, final_states)
    (optional: NotImplementedError keeps the stacked outputs).
    """

    def initialize(self, inits):
        raise NotImplementedError

    def step(self, time, inputs, states, **kwargs):
        raise NotImplementedError

    def finalize(self, outputs, final_states, sequence_lengths):
        raise NotImplementedError

    @property
    def tracks_own_finished(self) -> bool:
        """Whether the decoder keeps its own finished flags (beams get reordered)."""
        return False


class BeamSearchDecoder(Decoder):
    """Beam search over an RNN cell (Paddle's nn.BeamSearchDecoder).

    Each step runs `cell` on the [batch_size * beam_size] merged inputs and states, maps the
    cell output through `output_fn` to logits [batch_size, beam_size, vocab_size], adds the
    log softmax to each beam's accumulated log probability (a finished beam can only extend
    itself with end_token at no cost) and keeps the beam_size best of the beam_size *
    vocab_size candidates per batch entry. The chosen ids are fed back through
    `embedding_fn`.

    Args:
        cell (RNNCellBase): called as cell(inputs, states, **kwargs) -> (outputs, states).
        start_token (int): id fed at the first step.
        end_token (int): id that finishes a beam.
        beam_size (int): beams kept per batch entry.
        embedding_fn (callable, optional): ids [batch_size, beam_size] -> cell inputs.
        output_fn (callable, optional): cell outputs -> logits.

    dynamic_decode returns, for this decoder, predicted ids [batch_size, time, beam_size]
    (time major: [time, batch_size, beam_size]) reconstructed with gather_tree, and the final
    StateWrapper(cell_states, log_probs, finished, lengths).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.nn.decode import BeamSearchDecoder, dynamic_decode
        >>> cell = paddle.nn.GRUCell(4, 4)
        >>> decoder = BeamSearchDecoder(
        ...     cell, start_token=0, end_token=1, beam_size=2,
        ...     embedding_fn=paddle.nn.Embedding(5, 4), output_fn=paddle.nn.Linear(4, 5))
        >>> ids, state = dynamic_decode(decoder, cell.get_initial_states(
        ...     paddle.zeros([3, 4])), max_step_num=3)
        >>> ids.shape[0], ids.shape[2]
        (3, 2)
    """

    class OutputWrapper(NamedTuple):
        """Per-step outputs: scores, predicted_ids and parent_ids, each [batch, beam]."""
        scores: Tensor
        predicted_ids: Tensor
        parent_ids: Tensor

    class StateWrapper(NamedTuple):
        """Decoding state: cell_states [batch, beam, ...], log_probs, finished, lengths."""
        cell_states: Any
        log_probs: Tensor
        finished: Tensor
        lengths: Tensor

    def __init__(self, cell, start_token: int, end_token: int, beam_size: int,
                 embedding_fn: Callable | None = None,
                 output_fn: Callable | None = None) -> None:
        if not callable(cell):
            raise TypeError(f"BeamSearchDecoder: cell must be a callable RNN cell, got "
                            f"{type(cell).__name__}")
        if not isinstance(beam_size, int) or beam_size < 1:
            raise ValueError(f"BeamSearchDecoder: beam_size must be a positive int, got "
                             f"{beam_size!r}")
        for arg, value in (("start_token", start_token), ("end_token", end_token)):
            if not isinstance(value, int) or value < 0:
                raise ValueError(f"BeamSearchDecoder: {arg} must be a non-negative int, got "
                                 f"{value!r}")
        self.cell = cell
        self.embedding_fn = embedding_fn
        self.output_fn = output_fn
        self.start_token = start_token
        self.end_token = end_token
        self.beam_size = beam_size
        self.kinf = 1e9

    # -- batch/beam layout helpers (Paddle's names) --
    @staticmethod
    def tile_beam_merge_with_batch(x: Tensor, beam_size: int) -> Tensor:
        """[batch_size, ...] -> [batch_size * beam_size, ...], each entry repeated beam_size
        times in a row (tiles e.g. encoder outputs for the merged batch of beams)."""
        x = T.unsqueeze(x, [1])
        times = [1] * x.ndim
        times[1] = beam_size
        return T.reshape(T.tile(x, times), [-1] + list(x.shape[2:]))

    def _split_batch_beams(self, x: Tensor) -> Tensor:
        return T.reshape(x, [-1, self.beam_size] + list(x.shape[1:]))

    def _merge_batch_beams(self, x: Tensor) -> Tensor:
        return T.reshape(x, [-1] + list(x.shape[2:]))

    def _expand_to_beam_size(self, x: Tensor) -> Tensor:
        x = T.unsqueeze(x, [1])
        times = [1] * x.ndim
        times[1] = self.beam_size
        return T.tile(x, times)

    def _gather(self, x: Tensor, indices: Tensor) -> Tensor:
        """x[b, indices[b, k]] for every batch entry b: [batch, beam, ...]."""
        batch = indices.shape[0]
        rows = T.tile(T.unsqueeze(T.arange(0, batch, 1, dtype=indices.dtype), [1]),
                      [1, self.beam_size])
        return T.gather_nd(x, T.stack([rows, indices], axis=2))

    def _mask_probs(self, probs: Tensor, finished: Tensor) -> Tensor:
        """Finished beams: log prob 0 for end_token and -kinf for every other id."""
        vocab = probs.shape[-1]
        noend = [-self.kinf] * vocab
        noend[self.end_token] = 0.0
        noend = T.to_tensor(noend, dtype=probs.dtype)
        done = T.unsqueeze(T.cast(finished, probs.dtype), [2])
        return done * noend + (1.0 - done) * probs

    def initialize(self, initial_cell_states):
        """(initial_inputs, StateWrapper, finished): start_token ids [batch, beam] (through
        embedding_fn), cell states tiled to [batch, beam, ...], log_probs [0, -1e9, ...] per
        batch entry (only the first beam is live), finished False, lengths 0 (int64)."""
        leaves = _flatten(initial_cell_states)
        if not leaves or not isinstance(leaves[0], Tensor):
            raise TypeError("BeamSearchDecoder.initialize: initial_cell_states must be a "
                            "Tensor or a nested structure of Tensors")
        batch = leaves[0].shape[0]
        states = _map_structure(self._expand_to_beam_size, initial_cell_states)
        ids = T.full([batch, self.beam_size], self.start_token, dtype="int64")
        dtype = "float64" if get_default_dtype() == "float64" else "float32"
        log_probs = T.tile(T.to_tensor([[0.0] + [-self.kinf] * (self.beam_size - 1)],
                                       dtype=dtype), [batch, 1])
        finished = T.full([batch, self.beam_size], False, dtype="bool")
        lengths = T.zeros_like(ids)
        inputs = self.embedding_fn(ids) if self.embedding_fn else ids
        return inputs, self.StateWrapper(states, log_probs, finished, lengths), finished

    def _beam_search_step(self, time, logits, next_cell_states, beam_state):
        vocab = logits.shape[-1]
        if not 0 <= self.end_token < vocab:
            raise ValueError(f"BeamSearchDecoder: end_token {self.end_token} is out of range "
                             f"for the {vocab} logits of output_fn")
        step_log_probs = T.log(F.softmax(logits))
        step_log_probs = self._mask_probs(step_log_probs, beam_state.finished)
        log_probs = step_log_probs + T.unsqueeze(beam_state.log_probs, [2])
        scores = T.reshape(log_probs, [-1, self.beam_size * vocab])
        top_scores, top_indices = T.topk(scores, k=self.beam_size)
        beam_indices = T.floor_divide(top_indices, T.full_like(top_indices, vocab))
        token_indices = T.remainder(top_indices, T.full_like(top_indices, vocab))
        next_log_probs = self._gather(scores, top_indices)
        next_cell_states = _map_structure(lambda x: self._gather(x, beam_indices),
                                          next_cell_states)
        next_finished = self._gather(beam_state.finished, beam_indices)
        next_lengths = self._gather(beam_state.lengths, beam_indices)
        next_lengths = next_lengths + T.cast(T.logical_not(next_finished), next_lengths.dtype)
        next_finished = T.logical_or(next_finished,
                                     T.equal(token_indices,
                                             T.full_like(token_indices, self.end_token)))
        output = self.OutputWrapper(top_scores, token_indices, beam_indices)
        state = self.StateWrapper(next_cell_states, next_log_probs, next_finished,
                                  next_lengths)
        return output, state

    def step(self, time, inputs, states, **kwargs):
        """One beam-search step: (OutputWrapper, StateWrapper, next_inputs, finished)."""
        inputs = _map_structure(self._merge_batch_beams, inputs)
        cell_states = _map_structure(self._merge_batch_beams, states.cell_states)
        cell_outputs, next_cell_states = self.cell(inputs, cell_states, **kwargs)
        cell_outputs = _map_structure(self._split_batch_beams, cell_outputs)
        next_cell_states = _map_structure(self._split_batch_beams, next_cell_states)
        if self.output_fn is not None:
            cell_outputs = self.output_fn(cell_outputs)
        output, state = self._beam_search_step(time, cell_outputs, next_cell_states, states)
        sample_ids = output.predicted_ids
        sample_ids.stop_gradient = True
        next_inputs = self.embedding_fn(sample_ids) if self.embedding_fn else sample_ids
        return output, state, next_inputs, state.finished

    def finalize(self, outputs, final_states, sequence_lengths):
        """Full sequences [time, batch, beam] from the stacked step outputs (gather_tree)."""
        ids = F.gather_tree(outputs.predicted_ids, outputs.parent_ids)
        return T.cast(ids, outputs.predicted_ids.dtype), final_states

    @property
    def tracks_own_finished(self) -> bool:
        return True


# --- the decoding loop ------------------------------------------------------------------

def _keep_finished(state: Tensor, new_state: Tensor, finished: Tensor) -> Tensor:
    """new_state, except rows whose sequence was already finished keep `state`."""
    mask = T.reshape(finished, [finished.shape[0]] + [1] * (state.ndim - 1))
    mask = T.expand(mask, state.shape)
    return T.where(mask, state, new_state)


def dynamic_decode(decoder, inits=None, max_step_num: int | None = None,
                   output_time_major: bool = False, impute_finished: bool = False,
                   is_test: bool = False, return_length: bool = False, **kwargs):
    """Run `decoder` step by step until every sequence is finished or max_step_num is
    passed (at most max_step_num + 1 steps, as in Paddle).

    Args:
        decoder (Decoder): e.g. a BeamSearchDecoder.
        inits: passed to decoder.initialize (e.g. the initial cell states).
        max_step_num (int, optional): stop once more than this many steps ran.
        output_time_major (bool): outputs [time, batch, ...] instead of [batch, time, ...].
        impute_finished (bool): for decoders that do not track their own finished flags,
            finished sequences keep their state (beam search ignores it).
        is_test (bool): accepted for Paddle compatibility (no effect in eager mode).
        return_length (bool): also return the sequence lengths (int64 [batch, ...]).
        **kwargs: passed to decoder.step (and on to the cell).

    Returns:
        tuple: (final_outputs, final_states) or (final_outputs, final_states,
        sequence_lengths).
    """
    if max_step_num is not None and (not isinstance(max_step_num, int) or max_step_num < 0):
        raise ValueError(f"dynamic_decode: max_step_num must be None or a non-negative int, "
                         f"got {max_step_num!r}")
    inputs, states, finished = decoder.initialize(inits)
    lengths = T.cast(T.zeros_like(finished), "int64")
    steps = []
    step = 0
    time = T.full([1], 0, dtype="int64")
    while not bool(T.all(finished).item()):
        outputs, next_states, next_inputs, next_finished = decoder.step(
            time, inputs, states, **kwargs)
        if not decoder.tracks_own_finished:
            next_finished = T.logical_or(next_finished, finished)
            next_lengths = lengths + T.cast(T.logical_not(finished), lengths.dtype)
            if impute_finished:
                next_states = _map_structure(
                    lambda old, new: _keep_finished(old, new, finished), states, next_states)
        else:
            if not hasattr(next_states, "lengths"):
                warnings.warn("`next_states` has no `lengths` attribute, the returned "
                              "`sequence_lengths` would be all zeros.")
            next_lengths = getattr(next_states, "lengths", lengths)
        steps.append(outputs)
        inputs, states, finished, lengths = next_inputs, next_states, next_finished, \
            next_lengths
        time = time + 1
        step += 1
        if max_step_num is not None and step > max_step_num:
            break
    if not steps:
        raise ValueError("dynamic_decode: every sequence is finished at initialization; "
                         "there is nothing to decode")
    final_outputs = _map_structure(lambda *xs: T.stack(list(xs), axis=0), *steps)
    final_states = states
    try:
        final_outputs, final_states = decoder.finalize(final_outputs, final_states, lengths)
    except NotImplementedError:
        pass
    if not output_time_major:
        final_outputs = _map_structure(
            lambda x: T.transpose(x, [1, 0] + list(range(2, x.ndim))), final_outputs)
    if return_length:
        return final_outputs, final_states, lengths
    return final_outputs, final_states
