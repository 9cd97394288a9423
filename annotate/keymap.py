"""The judging page's keyboard: which key does what, per campaign, checked once when it is set.

Actions (:data:`ACTIONS`): ``label:V`` gives the pair label ``V``; ``skip``, ``back``,
``forward`` and ``undo`` (withdraw the last judgment and show it again) are the page's
navigation buttons, ``cannot_judge`` its "I can't judge this" button
(shown only in campaigns that offer it); ``comment``, ``legend`` and the six scrolling
actions act on the page itself. A campaign may override any of the defaults
(:data:`DEFAULT_KEYS`; a one-digit label ``V`` is the key ``V``) with a JSON object such as::

    {"label:0": "a", "label:1": "l", "skip": "x", "page_down": ["Space", "PageDown"]}

A key is one character (a letter, a digit or a punctuation mark; letters are case-blind) or a
named key of :data:`NAMED_KEYS`. Buttons take one key each, and only what Streamlit's button
shortcuts accept: a letter, a digit or a named key. Refused, as an InputError naming the action:
an unknown action, a key Streamlit reserves (``c``, ``r``), a key with a fixed meaning (Enter,
Esc, Tab), a key given to two actions, a modifier combination, JSON that is not such an object.
Esc (leave any text field) and Enter (in the comment box: keep the comment and leave the box)
are fixed and listed in every legend (:data:`FIXED_KEYS`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pooljudge.errors import InputError
from pooljudge.formats.files import read_text

__all__ = [
    "ACTIONS",
    "BUTTON_ACTIONS",
    "DEFAULT_KEYS",
    "FIXED_KEYS",
    "NAMED_KEYS",
    "PAGE_ACTIONS",
    "RESERVED_KEYS",
    "KeyMap",
    "label_action",
]

# What each action does, in the legend's order (label actions come first, one per label).
ACTIONS = {
    "skip": "skip for now",
    "back": "previous pair (change an earlier label)",
    "forward": "back to new pairs (after going back)",
    "undo": "undo my last judgment (it is withdrawn and shown again)",
    "cannot_judge": "I can't judge this (asks for a reason)",
    "comment": "type a comment (saved with the label)",
    "page_down": "scroll the document down a screen",
    "page_up": "scroll the document up a screen",
    "line_down": "scroll the document down a little",
    "line_up": "scroll the document up a little",
    "top": "document start",
    "bottom": "document end",
    "legend": "show or hide this list of keys",
}
BUTTON_ACTIONS = frozenset({"skip", "back", "forward", "undo", "cannot_judge"})
PAGE_ACTIONS = tuple(a for a in ACTIONS if a not in BUTTON_ACTIONS)
DEFAULT_KEYS: dict[str, tuple[str, ...]] = {
    "skip": ("s",), "back": ("b",), "forward": ("n",), "undo": ("u",), "cannot_judge": ("i",),
    "comment": ("/",),
    "page_down": ("Space", "PageDown"), "page_up": ("PageUp",), "line_down": ("j", "Down"),
    "line_up": ("k", "Up"), "top": ("Home",), "bottom": ("End",), "legend": ("?",),
}
# Named keys, as Streamlit's button shortcuts spell them; the browser's event.key for each.
NAMED_KEYS = {
    "Space": " ", "PageDown": "PageDown", "PageUp": "PageUp", "Home": "Home", "End": "End",
    "Up": "ArrowUp", "Down": "ArrowDown", "Left": "ArrowLeft", "Right": "ArrowRight",
    "Backspace": "Backspace", "Delete": "Delete", **{f"F{i}": f"F{i}" for i in range(1, 13)},
}
# Streamlit's own keys (clear cache, rerun), which it refuses as shortcuts even with modifiers.
RESERVED_KEYS = frozenset({"c", "r"})
FIXED_KEYS = (("Esc", "leave the comment box (any text field)"),
              ("Enter", "in the comment box: keep the comment and leave the box"))
_FIXED_NAMES = {"enter": "Enter", "return": "Enter", "esc": "Esc", "escape": "Esc", "tab": "Tab"}
_ALIASES = {"arrowup": "Up", "arrowdown": "Down", "arrowleft": "Left", "arrowright": "Right",
            "spacebar": "Space", "pgdn": "PageDown", "pgup": "PageUp",
            "del": "Delete", **{name.lower(): name for name in NAMED_KEYS}}
_SOURCE = "key map"


def label_action(value: int) -> str:
    """The action that gives label ``value`` (``label:2``, ``label:-1``)."""
    return f"label:{value}"


@dataclass(frozen=True)
class KeyMap:
    """Every action's keys for a scale of label ``labels``: ``bindings`` maps action to keys
    (canonical names, see :func:`canonical_key`); a label may have none."""

    labels: tuple[int, ...]
    bindings: Mapping[str, tuple[str, ...]]

    @classmethod
    def default(cls, labels: Sequence[int]) -> KeyMap:
        """The defaults: one-digit labels by their digit, then :data:`DEFAULT_KEYS`."""
        return cls.from_data({}, labels=labels)

    @classmethod
    def from_data(cls, data: object, *, labels: Sequence[int], source: str = _SOURCE,
                  stored: bool = False) -> KeyMap:
        """The defaults overridden by ``data`` (decoded JSON: action -> key or list of keys).
        InputError (``source: …``) for anything the module docstring refuses.

        ``stored``: ``data`` is a campaign's map saved by an earlier pooljudge, which did not
        know the actions added since (``undo``, ``cannot_judge``); a key it binds wins over a new
        action's default, which is left without that key (the legend shows what is bound),
        instead of refusing a map that was valid when it was saved."""
        if not isinstance(data, dict):
            raise InputError('expected a JSON object of "action": "key", e.g. {"skip": "x"}',
                             path=source)
        labels = tuple(sorted(labels))
        known = [*(label_action(v) for v in labels), *ACTIONS]
        unknown = [action for action in data if action not in known]
        if unknown:
            raise InputError(f"unknown action {unknown[0]!r}; the actions are "
                             f"{', '.join(known)}", path=source)
        bindings = {action: _default_keys(action) for action in known}
        for action, given in data.items():
            bindings[action] = _parse_keys(action, given, source)
        if stored:
            taken = {key for action in data for key in bindings[action]}
            for action in known:
                if action not in data:
                    bindings[action] = tuple(k for k in bindings[action] if k not in taken)
        _check_clashes(bindings, source)
        return cls(labels, bindings)

    @classmethod
    def from_json(cls, path: str | Path, *, labels: Sequence[int]) -> KeyMap:
        """:meth:`from_data` of a JSON file; InputError naming the file (and the line)."""
        text = read_text(path, "key map")
        return cls.from_text(text, labels=labels, source=str(path))

    @classmethod
    def from_text(cls, text: str, *, labels: Sequence[int], source: str = _SOURCE,
                  stored: bool = False) -> KeyMap:
        """:meth:`from_data` of JSON text; a key given twice in the object is an error."""
        try:
            data = json.loads(text, object_pairs_hook=_unique_keys)
        except ValueError as exc:
            raise InputError(f"not a JSON key map: {exc}", path=source,
                             line=getattr(exc, "lineno", None)) from None
        return cls.from_data(data, labels=labels, source=source, stored=stored)

    def to_json(self) -> str:
        """Every binding as the JSON object :meth:`from_text` reads back to this map."""
        return json.dumps({action: list(keys) for action, keys in self.bindings.items()},
                          ensure_ascii=False)

    def shortcut(self, action: str) -> str | None:
        """The key of a button action (``label:V``, skip, back, forward), None when unbound."""
        keys = self.bindings.get(action, ())
        return keys[0] if keys else None

    def page_keys(self) -> dict[str, str]:
        """The page actions by the browser's ``event.key`` (letters lower-cased), for the
        page's key handler."""
        return {_event_key(key): action for action in PAGE_ACTIONS
                for key in self.bindings[action]}

    def action_keys(self) -> dict[str, str]:
        """The button actions (labels, skip, back, forward, undo, can't judge) by the browser's
        ``event.key`` (letters lower-cased): the keys the judging pane's gate guards."""
        return {_event_key(key).lower() if len(_event_key(key)) == 1 else _event_key(key): action
                for action, keys in self.bindings.items() if action not in PAGE_ACTIONS
                for key in keys}

    def page_lines(self, *, document: bool = True) -> list[tuple[tuple[str, ...], str]]:
        """The legend's lines of the page actions, (keys, what they do), then the fixed keys;
        without a ``document`` on screen only the legend's own key."""
        actions = PAGE_ACTIONS if document else ("legend",)
        lines = [(self.bindings[a], ACTIONS[a]) for a in actions if self.bindings[a]]
        fixed = [((key,), what) for key, what in FIXED_KEYS] if document else []
        return lines + fixed


def canonical_key(text: str) -> str:
    """``text`` as a key name: a lower-cased ASCII letter, a digit or punctuation mark, or a name
    of :data:`NAMED_KEYS` (any case; ArrowUp, PgDn … accepted). InputError for anything else."""
    if text == " ":
        return "Space"
    if len(text) == 1 and text.isascii() and text.isprintable():
        return text.lower()
    name = text.strip().lower()
    if name in _ALIASES:
        return _ALIASES[name]
    if name in _FIXED_NAMES:
        raise InputError(f"{_FIXED_NAMES[name]} has a fixed meaning on the page (Esc and Enter "
                         "leave the comment box, Tab moves the focus)")
    if "+" in text.strip("+"):
        raise InputError(f"{text!r}: combinations with modifiers cannot be bound; use one key")
    raise InputError(f"{text!r} is not a key: use one letter, digit or punctuation mark, or "
                     f"one of {', '.join(NAMED_KEYS)}")


def _default_keys(action: str) -> tuple[str, ...]:
    if action.startswith("label:"):
        digit = action.removeprefix("label:")
        return (digit,) if len(digit) == 1 else ()
    return DEFAULT_KEYS[action]


def _parse_keys(action: str, given: object, source: str) -> tuple[str, ...]:
    """The keys ``given`` for ``action`` (a string or a list of strings), checked one by one."""
    items = [given] if isinstance(given, str) else given
    if not isinstance(items, list) or not all(isinstance(k, str) for k in items):
        raise InputError(f"{action}: expected a key name or a list of key names, got "
                         f"{given!r}", path=source)
    button = action in BUTTON_ACTIONS or action.startswith("label:")
    if button and len(items) > 1:
        raise InputError(f"{action}: a button takes one key, got {len(items)}", path=source)
    if not items and not action.startswith("label:"):
        raise InputError(f"{action}: needs at least one key", path=source)
    keys = []
    for item in items:
        try:
            key = canonical_key(item)
        except InputError as exc:  # name the action and the file
            raise InputError(f"{action}: {exc.message}", path=source) from None
        if key in RESERVED_KEYS:
            raise InputError(f"{action}: {key!r} is reserved by Streamlit (c clears its cache, "
                             "r reruns the app)", path=source)
        if button and len(key) == 1 and not key.isalnum():
            raise InputError(f"{action}: {key!r} cannot be a button's key (Streamlit binds "
                             "letters, digits and named keys only)", path=source)
        keys.append(key)
    return tuple(keys)


def _check_clashes(bindings: Mapping[str, tuple[str, ...]], source: str) -> None:
    """InputError for the first key bound twice (to two actions, or twice to one)."""
    owner: dict[str, str] = {}
    for action, keys in bindings.items():
        for key in keys:
            if key in owner:
                both = action if owner[key] == action else f"{owner[key]} and {action}"
                raise InputError(f"key {key!r} is bound twice: {both}", path=source)
            owner[key] = action


def _event_key(key: str) -> str:
    return NAMED_KEYS.get(key, key)


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """``json`` object hook: an action given twice is an error, not the last value silently."""
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"action {key!r} appears twice")
        seen.add(key)
    return dict(pairs)
