"""The one grammar of parameterised names, shared by measures (``P@10``, ``RBP(p=0.8)``,
``nDCG(gains={1:3,2:9})@10``) and judging strategies (``rrf``, ``maxmean(alpha=2)``, ``take@5``).

::

    name     := letter (letter | digit | "_" | "-")*
    text     := name [ "(" item ("," item)* ")" ] [ "@" cutoff ]
    item     := key "=" value | blank          (blank items, as in "f(a=1,)", are skipped)
                (a reader may allow other marks than "=", e.g. ``strata(10:1.0)``: separators)
    value    := text without "(" ")"; braces "{...}" (one level) may hold commas
    cutoff   := the rest of the text, e.g. 10 or 0.3

Blanks around the name, the parentheses, the ``@`` and each key and value are ignored. The
parser reads the shape only: parameters come back as raw text in the order written, and each
registry checks the names, converts the values and applies its defaults. :func:`format_name`
writes the shape back. Faults are :class:`NameSyntaxError`, an :class:`InputError`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from os import PathLike

from pooljudge.errors import InputError

__all__ = ["NameSyntaxError", "ParsedName", "format_name", "parse_name"]

_SHAPE = re.compile(
    r"^\s*(?P<name>[A-Za-z][A-Za-z0-9_-]*)\s*(?:\((?P<params>[^()]*)\)\s*)?"
    r"(?:@\s*(?P<cutoff>\S.*?))?\s*$"
)


class NameSyntaxError(InputError):
    """A text that does not follow the grammar. ``name`` is the name it starts with when only
    its parameters are at fault, None when the text does not even have the grammar's shape."""

    def __init__(self, message: str, *, name: str | None = None,
                 path: str | PathLike[str] | None = None) -> None:
        super().__init__(message, path=path)
        self.name = name


@dataclass(frozen=True)
class ParsedName:
    """A name as written: ``params`` are (key, raw value) pairs in the order written (keys
    distinct), ``cutoff`` the raw text after ``@`` (None without one)."""

    name: str
    params: tuple[tuple[str, str], ...] = ()
    cutoff: str | None = None


def parse_name(text: str, *, what: str = "name",
               source: str | PathLike[str] | None = None, separators: str = "=") -> ParsedName:
    """Split ``text`` into name, raw parameters and cutoff (see the module docstring).

    ``what`` ("measure", "strategy") and ``source`` (a file or an option, e.g. ``--strategy``)
    name the text in errors. ``separators`` are the marks that may part a key from its value
    (an item splits at the first of them it holds). Raises NameSyntaxError for a text of
    another shape, an item that is not ``key=value``, a key given twice, or braces that are
    unbalanced or nested.
    """
    stripped = text.strip()
    match = _SHAPE.match(stripped)
    if not match:
        raise NameSyntaxError(f"cannot parse {what} {stripped!r}", path=source)
    params: dict[str, str] = {}
    for item in _items(match["params"] or "", f"{what} {stripped}", match["name"], source):
        cut = min((item.find(s) for s in separators if s in item), default=len(item))
        key, value = item[:cut].strip(), item[cut + 1:].strip()
        if cut == len(item) or not key or not value:
            written = " or ".join(f"name{s}value" for s in separators)
            raise NameSyntaxError(f"{what} {stripped}: parameters are written {written}, "
                                  f"got {item.strip()!r}", name=match["name"], path=source)
        if key in params:
            raise NameSyntaxError(f"{what} {stripped}: parameter {key} is given twice",
                                  name=match["name"], path=source)
        params[key] = value
    return ParsedName(match["name"], tuple(params.items()), match["cutoff"])


def _items(raw: str, label: str, name: str, source: str | PathLike[str] | None) -> list[str]:
    """The non-blank comma-separated items of ``raw``; commas inside braces do not split."""
    items, depth, start = [], 0, 0
    for i, char in enumerate(raw):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth not in (0, 1):
            break
        if char == "," and depth == 0:
            items.append(raw[start:i])
            start = i + 1
    if depth != 0:
        raise NameSyntaxError(f"{label}: braces are not balanced or nested", name=name,
                              path=source)
    return [item for item in (*items, raw[start:]) if item.strip()]


def format_name(name: str, params: Iterable[tuple[str, str]] = (), cutoff: str | None = None
                ) -> str:
    """``name(key=value,...)@cutoff`` from already formatted values; parts left out when empty."""
    written = ",".join(f"{key}={value}" for key, value in params)
    return name + (f"({written})" if written else "") + ("" if cutoff is None else f"@{cutoff}")
