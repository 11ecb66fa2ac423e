"""paddle.jit.save and paddle.jit.load.

save traces the layer/function to one whole Program (a conversion failure is an error: no half
model is written), prunes it to the outputs, applies inference attrs (Program.clone(
for_test=True)) and writes `path.pdmodel` (the versioned JSON program of static/io, plus a
"jit" section: input/output specs and names, output structure, parameter names, the op types
used with their versions, the attrs that training mode restores) and `path.pdiparams`
(static/io's .npz parameters, no pickle), each atomically. The same files load with
`static.load_inference_model`. Imports `framework`, `ops`, `static`, `jit`.
"""
from __future__ import annotations

import json
import os
import zipfile

from ..framework.io import write_atomic
from ..ops.custom_op import custom_op_libraries, ensure_custom_ops
from ..ops.opdef import REGISTRY
from ..static.io import FORMAT, VERSION, _npz_bytes, _npz_load, program_from_dict, \
    program_to_dict
from ..static.passes.dce import dead_code_elimination
from .api import StaticFunction, describe
from .pytree import Leaf

JIT_VERSION = 1
_SAVE_CONFIGS = ("output_spec", "with_hook", "combine_params", "clip_extra", "skip_forward",
                 "input_names_after_prune", "skip_prune_program", "separate_parameters")
_LOAD_CONFIGS = ("model_filename", "params_filename")


def save(layer, path: str, input_spec=None, **configs) -> None:
    """Save a Layer (or function) as an inference model: `path.pdmodel` + `path.pdiparams`.

    Args:
        layer (Layer|function): a Layer (its forward, converted or not) or a function.
        path (str): "dirname/file_prefix".
        input_spec (list[InputSpec|Tensor], optional): the forward's inputs; default the
            to_static input_spec, else the inputs of the latest call.
        **configs: output_spec (list of output Tensors or indices to keep), combine_params,
            clip_extra, skip_forward, input_names_after_prune, skip_prune_program,
            separate_parameters, with_hook (accepted; sampan writes one params file).

    Examples:
        >>> import sampan as paddle
        >>> net = paddle.nn.Linear(4, 2)
        >>> paddle.jit.save(net, "/tmp/doc_jit/linear",
        ...                 input_spec=[paddle.static.InputSpec([None, 4], "float32", "x")])
        >>> loaded = paddle.jit.load("/tmp/doc_jit/linear")
        >>> loaded.eval()(paddle.ones([3, 4])).shape
        paddle.Size([3, 2])
    """
    for key in configs:
        if key not in _SAVE_CONFIGS:
            raise ValueError(f"The additional config ({key}) of `paddle.jit.save` is not "
                             f"supported.")
    if not isinstance(path, str) or not os.path.basename(path):
        raise ValueError(f"paddle.jit.save: path must be 'dirname/file_prefix', got {path!r}")
    concrete, layer_obj = _concrete_for_save(layer, input_spec)
    keep = _select_outputs(concrete, configs.get("output_spec"))
    model, values = _inference_model(concrete, keep, layer_obj)
    params = _npz_bytes(values)
    # NOTE: no sort_keys: an op's output slots are positional in dict order (Executor)
    text = json.dumps(model, indent=1).encode("utf-8")
    write_atomic(path + ".pdmodel", lambda f: f.write(text))
    write_atomic(path + ".pdiparams", lambda f: f.write(params))


def _concrete_for_save(layer, input_spec):
    """The ConcreteProgram to save (tracing it if needed) and the Layer it belongs to."""
    layer_obj = layer if hasattr(layer, "sublayers") and hasattr(layer, "forward") else None
    fn = layer.forward if layer_obj is not None else layer
    if isinstance(fn, StaticFunction):
        static = fn
    elif callable(fn):
        static = StaticFunction(fn)
    else:
        raise TypeError(f"paddle.jit.save: layer must be a Layer or a function, got "
                        f"{type(layer).__name__}")
    if input_spec is not None:
        if not isinstance(input_spec, (list, tuple)):
            raise TypeError(f"paddle.jit.save: input_spec must be a list of InputSpec or "
                            f"Tensor, got {type(input_spec).__name__}")
        return static.get_concrete_program(*input_spec)[0], layer_obj
    if static.input_spec is not None:
        return static.get_concrete_program(*static.input_spec)[0], layer_obj
    last = static.program_cache.last()
    if last is None:
        raise ValueError(f"paddle.jit.save: no input_spec was given and "
                         f"{describe(static.dygraph_function)} has not been run under "
                         f"to_static; pass input_spec=[InputSpec(...)]")
    return last, layer_obj


def _select_outputs(concrete, output_spec) -> list:
    """Indices of the flattened outputs to keep (output_spec: Tensors or indices)."""
    n = len(concrete.outputs)
    if output_spec is None:
        return list(range(n))
    if not isinstance(output_spec, (list, tuple)):
        raise TypeError(f"paddle.jit.save: output_spec must be a list, got "
                        f"{type(output_spec).__name__}")
    names = [v.name for v in concrete.outputs]
    keep = []
    for item in output_spec:
        if isinstance(item, int) and not isinstance(item, bool):
            if not 0 <= item < n:
                raise ValueError(f"paddle.jit.save: output_spec index {item} is out of range "
                                 f"for {n} outputs")
            keep.append(item)
        elif getattr(item, "name", None) in names:
            keep.append(names.index(item.name))
        else:
            raise ValueError(f"paddle.jit.save: output_spec item {getattr(item, 'name', item)!r}"
                             f" is not an output of the saved program (outputs: {names})")
    return keep


def _inference_model(concrete, keep: list, layer) -> tuple:
    """(the .pdmodel dict, {name: array} of its persistables)."""
    program = concrete.main_program
    feeds = [v.name for v in concrete.inputs]
    fetch = [concrete.outputs[k].name for k in keep]
    # the ops that update buffers (BatchNorm statistics) stay, for TranslatedLayer.train();
    # in the inference copy they write the statistics back unchanged
    state = [n for op in program.global_block().ops for n in op.output_arg_names
             if n in program._bound]
    pruned = dead_code_elimination(program, keep=fetch + state, side_effects=False,
                                   prune_vars=True)
    block = pruned.global_block()
    for v in concrete.inputs:   # an input no output uses stays a (fed, unused) input
        if not block.has_var(v.name):
            block.create_var(v.name, v.shape, v.dtype).is_data = True
    test = pruned.clone(for_test=True)
    d = program_to_dict(test)
    d["feed"], d["fetch"] = feeds, fetch
    values, params = {}, {}
    structured = _structured_names(layer, program)
    for v in test.list_vars():
        if not v.persistable or v.name in test._consts or v.is_data:
            continue
        tensor = program._bound.get(v.name)
        if tensor is None:
            raise ValueError(f"paddle.jit.save: persistable variable {v.name!r} has no value")
        values[v.name] = tensor._data
        params[v.name] = {"structured": structured.get(v.name, v.name),
                          "parameter": bool(v.is_parameter),
                          "stop_gradient": bool(tensor.stop_gradient)}
    if keep == list(range(len(concrete.outputs))):
        tree = concrete.out_tree
    else:   # output_spec: the kept outputs, as a list (one: the tensor itself)
        tree = Leaf if len(keep) == 1 else [Leaf] * len(keep)
    d["jit"] = {"version": JIT_VERSION,
                "inputs": [_spec_json(v) for v in concrete.inputs],
                "outputs": [_spec_json(concrete.outputs[k]) for k in keep],
                "output_structure": _tree_json(tree),
                "params": params,
                "ops": {t: REGISTRY[t].version for t in sorted({op.type for b in test.blocks
                                                                 for op in b.ops})},
                "train_attrs": _train_attrs(pruned, test)}
    libraries = custom_op_libraries(d["jit"]["ops"])
    if libraries:   # load() reloads them in a fresh process
        d["jit"]["custom_ops"] = libraries
    return d, values


def _spec_json(v) -> dict:
    return {"name": v.name, "shape": list(v.shape), "dtype": v.dtype.name}


def _structured_names(layer, program) -> dict:
    """var name -> the Layer's state_dict key of the tensor bound to it."""
    if layer is None:
        return {}
    by_id = {id(t): key for key, t in layer.state_dict().items()}
    return {name: by_id[id(t)] for name, t in program._bound.items() if id(t) in by_id}


def _train_attrs(pruned, test) -> list:
    """[block, op index, {attr: training value}] where the inference copy changed attrs."""
    out = []
    for b, (pb, tb) in enumerate(zip(pruned.blocks, test.blocks)):
        for k, (po, to) in enumerate(zip(pb.ops, tb.ops)):
            diff = {a: po.attrs[a] for a in po.attrs if po.attrs[a] != to.attrs.get(a)}
            if diff:
                out.append([b, k, diff])
    return out


def _tree_json(t):
    """A treedef as JSON: leaves {"leaf": 0}; list/tuple/dict by kind; others as constants."""
    if t is Leaf:
        return {"leaf": 0}
    if isinstance(t, (list, tuple)):
        return {type(t).__name__ if type(t) in (list, tuple) else "list":
                [_tree_json(x) for x in t]}
    if isinstance(t, dict):
        return {"dict": [[k, _tree_json(x)] for k, x in t.items()]}
    if t is None or isinstance(t, (bool, int, float, str)):
        return {"const": t}
    raise TypeError(f"paddle.jit.save: the function returns a {type(t).__name__} value, "
                    f"which cannot be saved (return tensors, or lists/tuples/dicts of them)")


def tree_from_json(d):
    if "leaf" in d:
        return Leaf
    if "list" in d:
        return [tree_from_json(x) for x in d["list"]]
    if "tuple" in d:
        return tuple(tree_from_json(x) for x in d["tuple"])
    if "dict" in d:
        return {k: tree_from_json(x) for k, x in d["dict"]}
    return d["const"]


# --- load --------------------------------------------------------------------------------------

def load(path: str, **configs):
    """Load a model saved by paddle.jit.save (or static.save_inference_model) as a
    TranslatedLayer: callable in dynamic mode, trainable, with program() and parameters().

    Args:
        path (str): the "dirname/file_prefix" given to save.
        **configs: model_filename, params_filename (file names inside dirname).

    Returns:
        TranslatedLayer.
    """
    for key in configs:
        if key not in _LOAD_CONFIGS:
            raise ValueError(f"The additional config ({key}) of `paddle.jit.load` is not "
                             f"supported.")
    model_path, params_path = _paths(path, configs)
    d = read_model(model_path)
    program = _program(d, model_path)
    values = read_params(params_path, program)
    from .translated_layer import TranslatedLayer
    return TranslatedLayer(program, d, values, model_path)


def _paths(path: str, configs: dict) -> tuple:
    if not isinstance(path, str) or not path:
        raise ValueError(f"paddle.jit.load: path must be 'dirname/file_prefix', got {path!r}")
    if configs.get("model_filename"):
        folder = path if os.path.isdir(path) else os.path.dirname(path)
        return (os.path.join(folder, configs["model_filename"]),
                os.path.join(folder, configs.get("params_filename") or
                             os.path.splitext(configs["model_filename"])[0] + ".pdiparams"))
    return path + ".pdmodel", path + ".pdiparams"


def read_model(model_path: str) -> dict:
    """The JSON dict of a .pdmodel file; clear errors naming the file."""
    if not os.path.exists(model_path):
        raise FileNotFoundError(f"paddle.jit.load: model file {model_path!r} does not exist")
    with open(model_path, "rb") as f:
        raw = f.read()
    try:
        d = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise ValueError(f"paddle.jit.load: {model_path!r} is truncated or corrupt, or not a "
                         f"sampan model ({e})") from None
    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise ValueError(f"paddle.jit.load: {model_path!r} is not a sampan program file")
    if not isinstance(d.get("version"), int) or d["version"] > VERSION:
        raise ValueError(f"paddle.jit.load: {model_path!r} has program format version "
                         f"{d.get('version')!r}; this sampan reads versions <= {VERSION}")
    jit = d.get("jit")
    if jit is not None and (not isinstance(jit, dict) or jit.get("version") != JIT_VERSION):
        raise ValueError(f"paddle.jit.load: {model_path!r} has jit format version "
                         f"{getattr(jit, 'get', lambda k: jit)('version')!r}; this sampan "
                         f"reads version {JIT_VERSION}")
    ensure_custom_ops((jit or {}).get("custom_ops", {}), os.path.dirname(model_path))
    _check_ops(d, model_path)
    return d


def _check_ops(d: dict, model_path: str) -> None:
    used = {od.get("type") for bd in d.get("blocks", []) for od in bd.get("ops", [])}
    versions = (d.get("jit") or {}).get("ops", {})
    for t in sorted(used, key=str):
        op = REGISTRY.get(t)
        if op is None:
            raise ValueError(f"paddle.jit.load: {model_path!r} uses operator {t!r}, which this "
                             f"sampan does not have")
        saved = versions.get(t, op.version)
        if saved != op.version:
            raise ValueError(f"paddle.jit.load: {model_path!r} was saved with operator {t!r} "
                             f"version {saved}; this sampan has version {op.version}")


def _program(d: dict, model_path: str):
    try:
        program = program_from_dict(d)
    except (KeyError, TypeError, ValueError, IndexError) as e:
        raise ValueError(f"paddle.jit.load: {model_path!r} is corrupt ({type(e).__name__}: "
                         f"{e})") from None
    program._feed_names = list(d.get("feed", []))
    program._fetch_names = list(d.get("fetch", []))
    block = program.global_block()
    for name in program._feed_names + program._fetch_names:
        if not block.has_var(name):
            raise ValueError(f"paddle.jit.load: {model_path!r} is corrupt (feed/fetch "
                             f"variable {name!r} is not in the program)")
    return program


def read_params(params_path: str, program) -> dict:
    """{name: array} from a .pdiparams file, checked against the program's persistables."""
    if not os.path.exists(params_path):
        raise FileNotFoundError(f"paddle.jit.load: parameter file {params_path!r} does not "
                                f"exist")
    with open(params_path, "rb") as f:
        raw = f.read()
    try:
        values = _npz_load(raw)
    except (ValueError, OSError, KeyError, EOFError, zipfile.BadZipFile) as e:
        raise ValueError(f"paddle.jit.load: {params_path!r} is truncated or corrupt "
                         f"({type(e).__name__}: {e})") from None
    for v in program.list_vars():
        if not v.persistable or v.name in program._consts or v.is_data:
            continue
        arr = values.get(v.name)
        if arr is None:
            raise ValueError(f"paddle.jit.load: {params_path!r} has no value for "
                             f"{v.name!r}")
        if -1 not in v.shape and list(arr.shape) != list(v.shape):
            raise ValueError(f"paddle.jit.load: {params_path!r} holds {v.name!r} with shape "
                             f"{list(arr.shape)}, the program expects {list(v.shape)}")
    return values

