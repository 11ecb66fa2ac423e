"""The `print` op (paddle.static.Print): identity that prints its input when it runs, and
its gradient in backward. Imports only `ops`.
"""
from __future__ import annotations

from .dispatch import call
from .opdef import OpDef, register


_PRINTED: dict = {}   # (print_id, is_backward) -> times printed (static.Print first_n)


def _print_count(attrs: dict) -> bool:
    """Whether this run prints: always when first_n < 0, else only the first first_n runs
    of each Print op (forward and backward counted apart)."""
    first_n = attrs["first_n"]
    if first_n is None or first_n < 0:
        return True
    key = (attrs["print_id"], bool(attrs["is_backward"]))
    done = _PRINTED.get(key, 0)
    if done >= first_n:
        return False
    _PRINTED[key] = done + 1
    return True


_PRINT_IDS = [0]


def new_print_id() -> int:
    """A fresh id for a Print op's first_n counter."""
    _PRINT_IDS[0] += 1
    return _PRINT_IDS[0]


@register
class Print(OpDef):
    """Identity that prints its input (static.Print); the gradient is printed too when
    print_phase is 'backward' or 'both'."""
    name = "print"
    attrs = {"message": "", "summarize": 20, "var_name": "", "print_tensor_name": True,
             "print_tensor_type": True, "print_tensor_shape": True, "print_phase": "both",
             "is_backward": False, "first_n": -1, "print_id": -1,
             "print_tensor_layout": False}

    def infer(self, x, **attrs):
        attrs = {**self.attrs, **attrs}
        if attrs["print_phase"] not in ("forward", "backward", "both"):
            raise ValueError(f"print: print_phase must be 'forward', 'backward' or 'both', "
                             f"got {attrs['print_phase']!r}")
        return x

    def compute(self, xp, x, **attrs):
        attrs = {**self.attrs, **attrs}
        phase = "backward" if attrs["is_backward"] else "forward"
        if attrs["print_phase"] in (phase, "both") and _print_count(attrs):
            lines = []
            if attrs["message"]:
                lines.append(str(attrs["message"]))
            if attrs["print_tensor_name"] and attrs["var_name"]:
                lines.append(f"Variable: {attrs['var_name']}")
            if attrs["print_tensor_type"]:
                lines.append(f"  - dtype: {x.dtype}")
            if attrs["print_tensor_shape"]:
                lines.append(f"  - shape: {list(x.shape)}")
            if attrs["print_tensor_layout"]:  # Paddle prints its default layout name
                lines.append("  - layout: NCHW")
            n = attrs["summarize"]
            flat = x.reshape(-1)
            shown = flat if n is None or n < 0 else flat[:n]
            lines.append(f"  - data: [{' '.join(str(v) for v in shown.tolist())}]")
            print("\n".join(lines), flush=True)
        return x

    def vjp(self, ctx, g):
        attrs = {k: getattr(ctx, k, v) for k, v in Print.attrs.items()}
        if attrs["print_phase"] == "forward":
            return (g,)
        attrs["is_backward"] = True
        attrs["var_name"] = f"{attrs['var_name']}@GRAD" if attrs["var_name"] else ""
        return (call("print", g, **attrs),)
