"""A physical keyboard over CDP (``Input.dispatchKeyEvent``) for the real-browser tests: a held
key is one keydown, a 0.5 s delay, then auto-repeat keydowns (``autoRepeat``) every 33 ms; a
double press is two keydowns some milliseconds apart. And a 5 ms DOM poll that records every
visible frame whose parts name two pairs."""

from __future__ import annotations

import time

__all__ = ["KEYS", "POLL", "Keyboard"]

KEYS = {"0": ("Digit0", 48), "1": ("Digit1", 49), "s": ("KeyS", 83), "u": ("KeyU", 85),
        "b": ("KeyB", 66), "i": ("KeyI", 73), "x": ("KeyX", 88)}
REPEAT_DELAY, REPEAT_EVERY = 0.5, 0.033

# In the page: every 5 ms, the pair ids of the visible parts (topic, document, label buttons);
# a frame naming two pairs at once is recorded.
POLL = """() => {
  window.__mixed = [];
  const pairs = () => {
    const ids = new Set();
    for (const el of document.querySelectorAll('[data-pj-pair]')) {
      if (getComputedStyle(el).visibility !== 'hidden') ids.add(el.dataset.pjPair);
    }
    // after a swap the buttons are dimmed and inactive until the run draws the claimed pair:
    // they name no pair on screen then (the gate admits no key meanwhile)
    const swapped = document.body.classList.contains('pj-swapped');
    for (const el of document.querySelectorAll('[class*="st-key-label_"]')) {
      const m = /st-key-label_(\\d+)_/.exec(el.className);
      if (m && !swapped && getComputedStyle(el).visibility !== 'hidden') ids.add(m[1]);
    }
    return ids;
  };
  clearInterval(window.__poll);
  window.__poll = setInterval(() => {
    const ids = pairs();
    if (ids.size > 1) window.__mixed.push([...ids]);
  }, 5);
}"""


class Keyboard:
    """A physical keyboard over CDP on one tab."""

    def __init__(self, page) -> None:
        self.page = page
        self.cdp = page.context.new_cdp_session(page)

    def _send(self, kind: str, key: str, *, repeat: bool = False) -> None:
        code, vk = KEYS[key]
        event = {"type": kind, "key": key, "code": code, "windowsVirtualKeyCode": vk,
                 "nativeVirtualKeyCode": vk, "autoRepeat": repeat}
        if kind == "keyDown":
            event["text"] = key
        self.cdp.send("Input.dispatchKeyEvent", event)

    def on_screen(self) -> dict:
        """The pair and document every part shows now (None when they disagree)."""
        return self.page.evaluate("""() => {
            const ids = new Set([...document.querySelectorAll('[data-pj-pair]')]
                .map(el => el.dataset.pjPair));
            const doc = document.querySelector('.pj-doc-id');
            return {pair: ids.size === 1 ? Number([...ids][0]) : null,
                    doc: doc ? doc.innerText.replace('Document ', '').trim() : null};
        }""")

    def hold(self, key: str, seconds: float) -> dict:
        """Hold ``key`` for ``seconds``; what was on screen at the first keydown."""
        seen = self.on_screen()
        self._send("keyDown", key)
        end = time.monotonic() + seconds
        time.sleep(min(REPEAT_DELAY, seconds))
        while time.monotonic() < end:
            self._send("keyDown", key, repeat=True)
            time.sleep(REPEAT_EVERY)
        self._send("keyUp", key)
        return seen

    def double(self, first: str, second: str, gap: float) -> dict:
        """``first`` then ``second``, ``gap`` seconds apart; what was on screen at the first."""
        seen = self.on_screen()
        self._send("keyDown", first)
        self._send("keyUp", first)
        time.sleep(gap)
        self._send("keyDown", second)
        self._send("keyUp", second)
        return seen
