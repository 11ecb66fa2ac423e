"""Parameter-server training in dynamic mode. `DistributedEmbedding` is an embedding whose
table lives on the servers: forward pulls the rows the batch touches, backward pushes their
gradient. `fleet.distributed_model` swaps every `nn.Embedding(..., sparse=True)` for one;
`PSOptimizer` (from `fleet.distributed_optimizer`) pushes the dense gradients at step(),
ends the step on the servers and pulls the new dense values.
"""
from __future__ import annotations

import numpy as np

from ...framework.param_attr import ParamAttr
from ...initializer.constant import ConstantInitializer
from ...initializer.normal import NormalInitializer
from ...initializer.uniform import UniformInitializer
from ...nn import functional as F
from ...nn.layer.common import Embedding
from ...nn.layer.layers import Layer
from ...tensor.creation import to_tensor
from ...utils import unique_name
from ..ps.client import TableConfig, get_client

_RULES = {"SGD": ("sgd", ()), "Adagrad": ("adagrad", ("_epsilon",)),
          "Adam": ("adam", ("_beta1", "_beta2", "_epsilon"))}


def server_rule(optimizer) -> tuple:
    """The server-side rule of a sampan optimizer (its learning rate now)."""
    kind = type(optimizer).__name__
    if kind not in _RULES:
        raise NotImplementedError(f"fleet parameter-server mode: the servers apply SGD, "
                                  f"Adagrad or Adam; got {kind}")
    name, attrs = _RULES[kind]
    return (name, float(optimizer.get_lr())) + tuple(float(getattr(optimizer, a))
                                                     for a in attrs)


def _table_init(weight_attr, num: int, dim: int) -> tuple:
    init = weight_attr.initializer if isinstance(weight_attr, ParamAttr) else weight_attr
    if isinstance(init, UniformInitializer):
        return ("uniform", init._low, init._high)
    if isinstance(init, NormalInitializer):
        return ("normal", init._mean, init._std)
    if isinstance(init, ConstantInitializer):
        return ("constant", float(init._value))
    return ("normal", 0.0, float(np.sqrt(2.0 / (num + dim))))   # XavierNormal's spread


class DistributedEmbedding(Layer):
    """An embedding whose [num_embeddings, embedding_dim] table is held, sharded, by the
    parameter servers: only rows that are looked up exist (created with the initializer
    of `weight_attr`; default a normal of XavierNormal's spread), and the servers update
    them with the rule of the optimizer given to `fleet.distributed_optimizer`.

    Args:
        num_embeddings (int): size of the id space (ids must be in [0, num_embeddings)).
        embedding_dim (int): row width.
        padding_idx (int, optional): an id whose output is zeros and gets no gradient.
        sparse (bool): accepted (the table is always sparse).
        weight_attr (ParamAttr, optional): its initializer (Uniform, Normal, Constant)
            and name (the table's name) are used.
        name (str, optional): unused.
        entry (optional): CountFilterEntry / ProbabilityEntry / ShowClickEntry.

    Examples:
        >>> import sampan as paddle
        >>> import sampan.distributed.fleet as fleet
        >>> fleet.init(is_collective=False)   # no launcher: the tables live in-process
        >>> fleet.init_worker()
        >>> emb = fleet.DistributedEmbedding(10**7, 4)
        >>> opt = fleet.distributed_optimizer(paddle.optimizer.SGD(0.1, parameters=[]))
        >>> emb(paddle.to_tensor([[3, 9999999]])).shape
        paddle.Size([1, 2, 4])
        >>> fleet.stop_worker()
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx=None,
                 sparse: bool = True, weight_attr=None, name=None, entry=None) -> None:
        super().__init__()
        for arg, value in (("num_embeddings", num_embeddings), ("embedding_dim",
                                                                 embedding_dim)):
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"DistributedEmbedding: {arg} must be a positive int, got "
                                 f"{value!r}")
        if padding_idx is not None and not -num_embeddings <= padding_idx < num_embeddings:
            raise ValueError(f"DistributedEmbedding: padding_idx must be in "
                             f"[{-num_embeddings}, {num_embeddings}), got {padding_idx}")
        self._num, self._dim = num_embeddings, embedding_dim
        self._pad = None if padding_idx is None else padding_idx % num_embeddings
        attr_name = weight_attr.name if isinstance(weight_attr, ParamAttr) else None
        self.table_name = attr_name or unique_name.generate("distributed_embedding")
        self._init = _table_init(weight_attr, num_embeddings, embedding_dim)
        self._entry = entry
        self._created = None

    def _client(self):
        client = get_client()
        if self._created is not client:
            from .fleet_base import fleet   # the one fleet of this process
            cfg = TableConfig(self.table_name, self._dim, self._init, fleet.server_rule(),
                              self._entry)
            client.create_tables([cfg])
            self._created = client
        return client

    def forward(self, x):
        ids = np.asarray(x.numpy() if hasattr(x, "numpy") else x)
        if ids.dtype.kind not in "iu":
            raise TypeError(f"DistributedEmbedding: ids must be int32 or int64, got "
                            f"{ids.dtype}")
        if ids.size and (ids.min() < 0 or ids.max() >= self._num):
            raise ValueError(f"DistributedEmbedding: ids must be in [0, {self._num}), got "
                             f"values in [{ids.min()}, {ids.max()}]")
        client = self._client()
        uniq, inv = np.unique(ids, return_inverse=True)
        real = uniq != self._pad if self._pad is not None else np.ones(len(uniq), bool)
        rows = np.zeros((len(uniq), self._dim), np.float32)
        rows[real] = client.pull_sparse(self.table_name, uniq[real])
        weight = to_tensor(rows, stop_gradient=False)
        table = self.table_name

        def push(grad):
            client.push_sparse(table, uniq[real], grad.numpy()[real])

        weight.register_hook(push)
        local_pad = int(np.flatnonzero(~real)[0]) if not real.all() else None
        local_ids = to_tensor(inv.reshape(ids.shape).astype(np.int64))
        return F.embedding(local_ids, weight, padding_idx=local_pad)

    def extra_repr(self) -> str:
        return f"{self._num}, {self._dim}, table={self.table_name}"


def convert_embeddings(model: Layer) -> list:
    """Replace each nn.Embedding(sparse=True) inside `model` by a DistributedEmbedding of the
    same shape whose table takes the weight's name; returns the dropped weights' names."""
    dropped = []
    for layer in [model] + list(model.sublayers()):
        for key, sub in list(layer._sub_layers.items()):
            if isinstance(sub, Embedding) and sub._sparse:
                num, dim = sub._num_embeddings, sub._embedding_dim
                attr = ParamAttr(name=sub.weight.name)
                new = DistributedEmbedding(num, dim, sub._padding_idx, weight_attr=attr)
                layer._sub_layers[key] = new   # in place: Sequential keeps its order
                dropped.append(sub.weight.name)
    return dropped


class PSOptimizer:
    """What fleet.distributed_optimizer returns in parameter-server mode. Dynamic mode:
    `step()` pushes each dense gradient to its server, ends the step there (sync mode: waits
    for every trainer) and loads the servers' new values; sparse rows were pushed in
    backward. Static mode: `minimize` builds the trainer and server programs."""

    def __init__(self, optimizer, fleet) -> None:
        self._inner, self._fleet = optimizer, fleet
        self._on_server: set = set()

    def __getattr__(self, name: str):
        return getattr(self._inner, name)

    def _params(self) -> list:
        params = self._inner._parameter_list
        if params and isinstance(params[0], dict):
            params = [p for group in params for p in group["params"]]
        return [p for p in params if p.name not in self._fleet._dropped]

    def step(self) -> None:
        """Push dense gradients, end the step on the servers, pull the dense values."""
        client = get_client()
        rule = server_rule(self._inner)
        for p in self._params():
            if p.stop_gradient or p.grad is None:
                continue
            if p.name not in self._on_server:
                client.init_dense(p.name, p.numpy(), rule)
                self._on_server.add(p.name)
            client.push_dense(p.name, p.grad.numpy())
        client.step()
        for p in self._params():
            if p.name in self._on_server:
                p.set_value(client.pull_dense(p.name).astype(p.numpy().dtype, copy=False))

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Dynamic mode: step() (call loss.backward() first). Static mode: the inner
        optimizer's minimize, then the PS transpiler splits the program."""
        from ...framework.flags import in_dynamic_mode
        if in_dynamic_mode():
            self.step()
            return None
        return self._fleet._static_minimize(self._inner, loss, startup_program, parameters,
                                            no_grad_set)

    def clear_grad(self, set_to_zero: bool = True) -> None:
        self._inner.clear_grad(set_to_zero)

    clear_gradients = clear_grad
