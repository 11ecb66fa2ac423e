"""LBFGS: limited-memory BFGS with an optional strong-Wolfe line search (eager only).

Works on the parameters flattened into one vector; `step(closure)` re-evaluates the loss and
gradients through `closure`. The two-loop recursion and the line search are plain vector
arithmetic on the parameters' arrays (no per-step OpDef: the closure drives the iteration).
"""
from __future__ import annotations

from collections import defaultdict

import numpy as np

from .optimizer import Optimizer, _no_grad

__all__ = ["LBFGS"]


def _cubic_min(x1, f1, g1, x2, f2, g2, bounds=None) -> float:
    """Minimiser of the cubic interpolating (x1, f1, g1) and (x2, f2, g2), within bounds."""
    lo, hi = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    square = d1 * d1 - g1 * g2
    if square >= 0:
        d2 = np.sqrt(square)
        if x1 <= x2:
            pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return float(min(max(pos, lo), hi))
    return (lo + hi) / 2.0


def _strong_wolfe(obj, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """Line search along d from x satisfying the strong Wolfe conditions.

    obj(x, t, d) -> (loss, flat grad) at x + t d. Returns (loss, grad, t, evaluations).
    """
    d_norm = np.abs(d).max()
    f_new, g_new = obj(x, t, d)
    evals = 1
    gtd_new = float(g_new @ d)
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done = False
    it = 0
    while it < max_ls:
        if f_new > f + c1 * t * gtd or (it > 1 and f_new >= f_prev):
            bracket = [t_prev, t]
            bf, bg, bgtd = [f_prev, f_new], [g_prev, g_new], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bf, bg = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket = [t_prev, t]
            bf, bg, bgtd = [f_prev, f_new], [g_prev, g_new], [gtd_prev, gtd_new]
            break
        lo, hi = t + 0.01 * (t - t_prev), t * 10
        t_next = _cubic_min(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(lo, hi))
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new, gtd_new
        t = t_next
        f_new, g_new = obj(x, t, d)
        evals += 1
        gtd_new = float(g_new @ d)
        it += 1
    else:
        bracket, bf, bg = [0.0, t], [f, f_new], [g, g_new]
        bgtd = [gtd, gtd_new]
    # zoom inside the bracket
    insuf = False
    low, high = (0, 1) if len(bf) == 1 or bf[0] <= bf[-1] else (1, 0)
    while not done and it < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_min(bracket[0], bf[0], bgtd[0], bracket[1], bf[1], bgtd[1])
        top, bot = max(bracket), min(bracket)
        eps = 0.1 * (top - bot)
        if min(top - t, t - bot) < eps:
            if insuf or t >= top or t <= bot:
                t = top - eps if abs(t - top) < abs(t - bot) else bot + eps
                insuf = False
            else:
                insuf = True
        else:
            insuf = False
        f_new, g_new = obj(x, t, d)
        evals += 1
        gtd_new = float(g_new @ d)
        it += 1
        if f_new > f + c1 * t * gtd or f_new >= bf[low]:
            bracket[high], bf[high], bg[high], bgtd[high] = t, f_new, g_new, gtd_new
            low, high = (0, 1) if bf[0] <= bf[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:
                bracket[high], bf[high], bg[high], bgtd[high] = (
                    bracket[low], bf[low], bg[low], bgtd[low])
            bracket[low], bf[low], bg[low], bgtd[low] = t, f_new, g_new, gtd_new
    t = bracket[low]
    return bf[low], bg[low], t, evals


class LBFGS(Optimizer):
    """Limited-memory BFGS (Nocedal & Wright, Algorithm 7.5), driven by `step(closure)`.

    Args:
        learning_rate (float, optional): step length (initial step of the line search).
            Default 1.0.
        max_iter (int, optional): iterations per step(). Default 20.
        max_eval (int, optional): closure evaluations per step(); default max_iter * 5 // 4.
        tolerance_grad (float, optional): stop when max |grad| <= this. Default 1e-7.
        tolerance_change (float, optional): stop when the step or loss change is smaller.
        history_size (int, optional): number of curvature pairs kept. Default 100.
        line_search_fn (str, optional): None (fixed step) or 'strong_wolfe'.
        parameters, weight_decay, grad_clip, name: see Optimizer.
    """

    def __init__(self, learning_rate: float = 1.0, max_iter: int = 20, max_eval=None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9,
                 history_size: int = 100, line_search_fn=None, parameters=None,
                 weight_decay=None, grad_clip=None, name: str | None = None) -> None:
        if line_search_fn not in (None, "strong_wolfe"):
            raise ValueError(f"LBFGS: line_search_fn must be None or 'strong_wolfe', got "
                             f"{line_search_fn!r}")
        self.learning_rate = float(learning_rate)
        self.max_iter = int(max_iter)
        self.max_eval = max_iter * 5 // 4 if max_eval is None else int(max_eval)
        self.tolerance_grad = tolerance_grad
        self.tolerance_change = tolerance_change
        self.history_size = int(history_size)
        self.line_search_fn = line_search_fn
        self.state = defaultdict(dict)
        super().__init__(1.0, parameters, weight_decay, grad_clip, name)
        self._params = self._all_params()

    def state_dict(self) -> dict:
        """{"state": the iteration state (direction, step, history, counters)}."""
        return {"state": dict(self.state["state"])}

    def set_state_dict(self, state_dict: dict) -> None:
        self.state["state"] = dict(state_dict.get("state", {}))

    def _flat_grad(self) -> np.ndarray:
        parts = []
        for p in self._params:
            g = p.grad
            parts.append(np.zeros(p._data.size, p._data.dtype) if g is None
                         else g._data.reshape(-1))
        return np.concatenate(parts) if parts else np.zeros(0)

    def _flat_params(self) -> np.ndarray:
        return np.concatenate([p._data.reshape(-1) for p in self._params])

    def _set_flat(self, flat: np.ndarray) -> None:
        offset = 0
        for p in self._params:
            n = p._data.size
            p._data = flat[offset:offset + n].reshape(p._data.shape).astype(p._data.dtype)
            p._version += 1
            offset += n

    def _evaluate(self, closure) -> tuple:
        from ..autograd import enable_grad
        with enable_grad():
            loss = closure()
        pairs = [(p, p.grad) for p in self._params]
        if self._grad_clip is not None:
            pairs = self._grad_clip(pairs)
        reg_pairs = []
        for p, g in pairs:
            reg = self._regularizer(p, self._groups[0])
            reg_pairs.append(g if g is None or reg is None else g + reg(p, g))
        for p, g in zip(self._params, reg_pairs):
            p._grad = g
        self._last_loss = loss
        return float(loss), self._flat_grad().astype(np.float64)

    def step(self, closure):
        """Run up to max_iter L-BFGS iterations; returns the loss (Tensor) of the first
        closure evaluation."""
        if closure is None:
            raise ValueError("LBFGS.step: a closure that re-evaluates the model is required")
        with _no_grad():
            return self._step(closure)

    def _step(self, closure):
        st = self.state["state"]
        lr = self.learning_rate
        loss, g = self._evaluate(closure)
        first_loss = self._last_loss
        evals = st["func_evals"] = st.get("func_evals", 0) + 1
        if np.abs(g).max() <= self.tolerance_grad:
            return first_loss
        d, t = st.get("d"), st.get("alpha", st.get("t"))  # Paddle's key for the step size
        s_hist, y_hist, rho = st.get("old_sk", []), st.get("old_yk", []), st.get("ro", [])
        h_diag, g_prev, loss_prev = st.get("H_diag", 1.0), st.get("prev_flat_grad"), \
            st.get("prev_loss")
        n_iter = 0
        evals = 1
        while n_iter < self.max_iter:
            n_iter += 1
            st["n_iter"] = st.get("n_iter", 0) + 1
            if st["n_iter"] == 1:
                d, h_diag = -g, 1.0
            else:
                y, s = g - g_prev, d * t
                ys = float(y @ s)
                if ys > 1e-10:
                    if len(s_hist) == self.history_size:
                        s_hist.pop(0), y_hist.pop(0), rho.pop(0)
                    s_hist.append(s), y_hist.append(y), rho.append(1.0 / ys)
                    h_diag = ys / float(y @ y)
                q = -g
                alpha = st.get("al") or [None] * self.history_size
                for i in range(len(s_hist) - 1, -1, -1):
                    alpha[i] = float(s_hist[i] @ q) * rho[i]
                    q = q - alpha[i] * y_hist[i]
                d = q * h_diag
                for i in range(len(s_hist)):
                    beta = float(y_hist[i] @ d) * rho[i]
                    d = d + s_hist[i] * (alpha[i] - beta)
                st["al"] = alpha
            g_prev, loss_prev = g.copy(), loss
            t = min(1.0, 1.0 / np.abs(g).sum()) * lr if st["n_iter"] == 1 else lr
            gtd = float(g @ d)
            if gtd > -self.tolerance_change:
                break
            if self.line_search_fn == "strong_wolfe":
                x0 = self._flat_params().astype(np.float64)

                def obj(x, step, direction):
                    self._set_flat(x + step * direction)
                    return self._evaluate(closure)
                loss, g, t, ls_evals = _strong_wolfe(obj, x0, t, d, loss, g, gtd,
                                                     tolerance_change=self.tolerance_change)
                self._set_flat(x0 + t * d)
            else:
                self._set_flat(self._flat_params().astype(np.float64) + t * d)
                ls_evals = 0
                if n_iter != self.max_iter:
                    loss, g = self._evaluate(closure)
                    ls_evals = 1
            evals += ls_evals
            st["func_evals"] += ls_evals
            if n_iter == self.max_iter or evals >= self.max_eval:
                break
            if np.abs(g).max() <= self.tolerance_grad:
                break
            if np.abs(d * t).max() <= self.tolerance_change:
                break
            if abs(loss - loss_prev) < self.tolerance_change:
                break
        st.pop("t", None)
        st.update(d=d, alpha=t, old_sk=s_hist, old_yk=y_hist, ro=rho, H_diag=h_diag,
                  prev_flat_grad=g_prev, prev_loss=loss_prev)
        return first_loss

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        raise NotImplementedError("LBFGS.minimize is not supported; use step(closure)")
