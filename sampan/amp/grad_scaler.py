"""GradScaler: dynamic loss scaling for float16 training.

Live where float16 is (`support.is_float16_supported()`); on CPU it is disabled as in Paddle
3.3.1: `scale` is the identity and `step`/`minimize` are plain optimizer steps, while the
getters still answer. The state machine (`_update_scale`) lowers the scale on inf/NaN
gradients and raises it after `incr_every_n_steps` good steps.
"""
from __future__ import annotations

import warnings

import numpy as np

from . import support

_INIT, _UNSCALED, _STEPPED = 0, 1, 2
_CPU_WARNING = ("AmpScaler can only be enabled on CUDAPlace, XPUPlace and CustomPlace, "
                "current place is Place(cpu), so it makes no effect.")


class GradScaler:
    """Scale the loss, unscale the gradients, skip steps whose gradients overflowed.

    Args:
        enable (bool, optional): use loss scaling. Default True.
        init_loss_scaling (float, optional): the initial scale. Default 2**16.
        incr_ratio (float, optional): multiplier after `incr_every_n_steps` good steps.
        decr_ratio (float, optional): multiplier after `decr_every_n_nan_or_inf` bad steps.
        incr_every_n_steps (int, optional): default 2000.
        decr_every_n_nan_or_inf (int, optional): default 1.
        use_dynamic_loss_scaling (bool, optional): adapt the scale. Default True.

    Examples:
        >>> import sampan as paddle
        >>> scaler = paddle.amp.GradScaler(init_loss_scaling=1024)
        >>> scaler.is_enable()  # float16 is unsupported on CPU, as in Paddle
        False
        >>> scaler.get_incr_every_n_steps()
        2000
    """

    def __init__(self, enable: bool = True, init_loss_scaling: float = 2.0 ** 16,
                 incr_ratio: float = 2.0, decr_ratio: float = 0.5,
                 incr_every_n_steps: int = 2000, decr_every_n_nan_or_inf: int = 1,
                 use_dynamic_loss_scaling: bool = True) -> None:
        if enable and not support.is_float16_supported():
            warnings.warn(_CPU_WARNING, UserWarning, stacklevel=2)
            enable = False
        self._enable = bool(enable)
        self._use_dynamic_loss_scaling = bool(use_dynamic_loss_scaling) and self._enable
        self._init_loss_scaling = float(init_loss_scaling) if self._enable else 1.0
        self._scale = self._init_loss_scaling
        self.set_incr_ratio(incr_ratio)
        self.set_decr_ratio(decr_ratio)
        self.set_incr_every_n_steps(incr_every_n_steps)
        self.set_decr_every_n_nan_or_inf(decr_every_n_nan_or_inf)
        self._incr_count = 0
        self._decr_count = 0
        self._found_inf = False
        self._opt_states = {}
        self._stepped_params = []  # parameters updated at the last step: grads must be cleared
        if self._enable:
            support.note_scaler()

    # --- the training-step protocol ------------------------------------------------------
    def scale(self, var):
        """Return `var` (the loss) times the loss scale; `var` itself when disabled."""
        if not self._enable:
            return var
        self._warn_uncleared()
        return var * self._scale

    def _warn_uncleared(self) -> None:
        """Gradients left from the last step would be added, still unscaled, to new scaled
        ones: warn (once per step) when they were never cleared."""
        params, self._stepped_params = self._stepped_params, []
        for param in params:
            grad = param._grad
            if grad is not None and np.any(grad._data != 0):
                warnings.warn(f"GradScaler.scale: the gradient of {param.name} from the last "
                              f"step was never cleared (call optimizer.clear_grad() after "
                              f"each step)", UserWarning, stacklevel=3)
                return

    def unscale_(self, optimizer) -> None:
        """Divide the optimizer's gradients by the scale (in place) and note inf/NaN."""
        if not self._enable:
            return
        if self._opt_states.get(id(optimizer)) is not None:
            raise RuntimeError("GradScaler.unscale_: unscale_() has already been called on "
                               "this optimizer since the last update()")
        inv = 1.0 / self._scale
        found = False
        for param in optimizer._all_params():
            grad = param._grad
            if grad is None:
                continue
            data = grad._data * grad._data.dtype.type(inv)  # a scalar: any device
            found = found or not bool(np.isfinite(data).all())
            grad._data = data
        self._found_inf = self._found_inf or found
        self._opt_states[id(optimizer)] = _UNSCALED

    def step(self, optimizer) -> None:
        """Unscale (if not done yet) and step `optimizer` unless gradients overflowed."""
        if not self._enable:
            optimizer.step()
            return
        state = self._opt_states.get(id(optimizer))
        if state == _STEPPED:
            raise RuntimeError("GradScaler.step: step() has already been called since the "
                               "last update()")
        if state is None:
            self.unscale_(optimizer)
        if not self._found_inf:
            optimizer.step()
        self._opt_states[id(optimizer)] = _STEPPED
        self._stepped_params.extend(optimizer._all_params())

    def update(self) -> None:
        """Adapt the scale to this step's overflow and reset the per-step state."""
        if not self._enable:
            return
        if self._use_dynamic_loss_scaling:
            self._update_scale(self._found_inf)
        self._found_inf = False
        self._opt_states = {}

    def minimize(self, optimizer, *args, **kwargs):
        """step(optimizer) then update(); a plain optimizer.minimize when disabled."""
        if not self._enable:
            return optimizer.minimize(*args, **kwargs)
        if self._opt_states.get(id(optimizer)) is None:
            self.unscale_(optimizer)
        if not self._found_inf:
            optimizer.step()
        self._opt_states[id(optimizer)] = _STEPPED
        self._stepped_params.extend(optimizer._all_params())
        self.update()
        return None

    def _update_scale(self, found_inf: bool) -> None:
        """One step of the dynamic loss-scaling state machine (Paddle's update_loss_scaling:
        the scale never drops below 1 and never grows to inf)."""
        if found_inf:
            self._incr_count = 0
            self._decr_count += 1
            if self._decr_count == self._decr_every_n_nan_or_inf:
                self._scale = max(self._scale * self._decr_ratio, 1.0)
                self._decr_count = 0
        else:
            self._decr_count = 0
            self._incr_count += 1
            if self._incr_count == self._incr_every_n_steps:
                grown = self._scale * self._incr_ratio
                if np.isfinite(np.float32(grown)):
                    self._scale = grown
                self._incr_count = 0

    # --- settings ------------------------------------------------------------------------
    def is_enable(self) -> bool:
        return self._enable

    def is_use_dynamic_loss_scaling(self) -> bool:
        return self._use_dynamic_loss_scaling

    def get_init_loss_scaling(self) -> float:
        return self._init_loss_scaling

    def set_init_loss_scaling(self, new_init_loss_scaling: float) -> None:
        """Set the initial scale and reset the current scale to it."""
        self._init_loss_scaling = float(new_init_loss_scaling)
        self._scale = self._init_loss_scaling

    def get_incr_ratio(self) -> float:
        return self._incr_ratio

    def set_incr_ratio(self, new_incr_ratio: float) -> None:
        if not new_incr_ratio > 1.0:
            raise ValueError(f"GradScaler: incr_ratio must be > 1.0, got {new_incr_ratio}")
        self._incr_ratio = float(new_incr_ratio)

    def get_decr_ratio(self) -> float:
        return self._decr_ratio

    def set_decr_ratio(self, new_decr_ratio: float) -> None:
        if not 0.0 <= new_decr_ratio < 1.0:
            raise ValueError(f"GradScaler: decr_ratio must be in [0, 1), got {new_decr_ratio}")
        self._decr_ratio = float(new_decr_ratio)

    def get_incr_every_n_steps(self) -> int:
        return self._incr_every_n_steps

    def set_incr_every_n_steps(self, new_incr_every_n_steps: int) -> None:
        self._incr_every_n_steps = _positive_int("incr_every_n_steps", new_incr_every_n_steps)

    def get_decr_every_n_nan_or_inf(self) -> int:
        return self._decr_every_n_nan_or_inf

    def set_decr_every_n_nan_or_inf(self, new_decr_every_n_nan_or_inf: int) -> None:
        self._decr_every_n_nan_or_inf = _positive_int("decr_every_n_nan_or_inf",
                                                      new_decr_every_n_nan_or_inf)

    def state_dict(self) -> dict:
        """The scaler's state ({} when disabled, as in Paddle)."""
        if not self._enable:
            return {}
        return {"scale": np.array([self._scale], dtype=np.float32),
                "incr_ratio": self._incr_ratio, "decr_ratio": self._decr_ratio,
                "incr_every_n_steps": self._incr_every_n_steps,
                "decr_every_n_nan_or_inf": self._decr_every_n_nan_or_inf,
                "incr_count": self._incr_count, "decr_count": self._decr_count,
                "use_dynamic_loss_scaling": self._use_dynamic_loss_scaling}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore a state from `state_dict()` (ignored when disabled)."""
        if not self._enable:
            return
        if not state_dict:
            raise RuntimeError("GradScaler.load_state_dict: the state dict is empty, possibly "
                               "because it was saved from a disabled GradScaler")
        self._init_loss_scaling = float(np.asarray(state_dict["scale"]).reshape(-1)[0])
        self._scale = self._init_loss_scaling
        self.set_incr_ratio(state_dict["incr_ratio"])
        self.set_decr_ratio(state_dict["decr_ratio"])
        self.set_incr_every_n_steps(state_dict["incr_every_n_steps"])
        self.set_decr_every_n_nan_or_inf(state_dict["decr_every_n_nan_or_inf"])
        self._incr_count = int(state_dict["incr_count"])
        self._decr_count = int(state_dict["decr_count"])
        self._use_dynamic_loss_scaling = bool(state_dict["use_dynamic_loss_scaling"])

    set_state_dict = load_state_dict


def _positive_int(arg: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"GradScaler: {arg} must be a positive int, got {value!r}")
    return int(value)

