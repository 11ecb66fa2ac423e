"""Entry policies of sparse tables (paddle.distributed.CountFilterEntry, ProbabilityEntry,
ShowClickEntry): when a feature id seen for the first time gets a row in its table. An entry
travels to the servers as Paddle's attribute string (`count_filter_entry:10`, ...).
Imports nothing of sampan.
"""
from __future__ import annotations


class EntryAttr:
    """Base class of the entry policies; `_to_attr()` gives the policy as Paddle's string."""

    def __init__(self) -> None:
        self._name = None

    def _to_attr(self) -> str:
        raise NotImplementedError("EntryAttr is base class")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._to_attr()!r})"


class ProbabilityEntry(EntryAttr):
    """A new id gets a row with probability `probability` each time it is looked up; until
    then lookups give zeros and its gradients are dropped.

    Args:
        probability (float): in (0, 1).

    Examples:
        >>> import sampan as paddle
        >>> paddle.distributed.ProbabilityEntry(0.1)._to_attr()
        'probability_entry:0.1'
    """

    def __init__(self, probability: float) -> None:
        super().__init__()
        if not isinstance(probability, float) or not 0 < probability < 1:
            raise ValueError(f"ProbabilityEntry: probability must be a float in (0,1), got "
                             f"{probability!r}")
        self._name = "probability_entry"
        self._probability = probability

    def _to_attr(self) -> str:
        return f"{self._name}:{self._probability}"


class CountFilterEntry(EntryAttr):
    """A new id gets a row once it has been looked up `count_filter` times; before that
    lookups give zeros and its gradients are dropped (0 or 1: at once).

    Args:
        count_filter (int): >= 0.

    Examples:
        >>> import sampan as paddle
        >>> paddle.distributed.CountFilterEntry(10)._to_attr()
        'count_filter_entry:10'
    """

    def __init__(self, count_filter: int) -> None:
        super().__init__()
        if not isinstance(count_filter, int) or isinstance(count_filter, bool) \
                or count_filter < 0:
            raise ValueError(f"CountFilterEntry: count_filter must be an integer >= 0, got "
                             f"{count_filter!r}")
        self._name = "count_filter_entry"
        self._count_filter = count_filter

    def _to_attr(self) -> str:
        return f"{self._name}:{self._count_filter}"


class ShowClickEntry(EntryAttr):
    """Rows are created at first lookup and carry show/click statistics fed from the
    variables named `show_name` and `click_name` (CTR accessors read them).

    Args:
        show_name (str): name of the show input.
        click_name (str): name of the click input.

    Examples:
        >>> import sampan as paddle
        >>> paddle.distributed.ShowClickEntry("show", "click")._to_attr()
        'show_click_entry:show:click'
    """

    def __init__(self, show_name: str, click_name: str) -> None:
        super().__init__()
        if not isinstance(show_name, str) or not isinstance(click_name, str):
            raise ValueError(f"ShowClickEntry: show_name and click_name must be str, got "
                             f"{show_name!r}, {click_name!r}")
        self._name = "show_click_entry"
        self._show_name = show_name
        self._click_name = click_name

    def _to_attr(self) -> str:
        return f"{self._name}:{self._show_name}:{self._click_name}"


def parse_entry(entry) -> tuple:
    """An entry (EntryAttr, its string, or None) as (kind, value): ("none", 0),
    ("count", n), ("probability", p) or ("show_click", (show, click))."""
    if entry is None or entry == "none":
        return ("none", 0)
    text = entry._to_attr() if isinstance(entry, EntryAttr) else entry
    if not isinstance(text, str):
        raise TypeError(f"TableConfig: entry must be a paddle.distributed entry (e.g. "
                        f"CountFilterEntry), its string, or None, got {type(entry).__name__}")
    kind, _, rest = text.partition(":")
    try:
        if kind == "count_filter_entry":
            return ("count", int(rest))
        if kind == "probability_entry":
            return ("probability", float(rest))
        if kind == "show_click_entry":
            show, click = rest.split(":")
            return ("show_click", (show, click))
    except ValueError:
        pass
    raise ValueError(f"TableConfig: unknown entry {text!r} (expected count_filter_entry:N, "
                     f"probability_entry:p or show_click_entry:show:click)")
