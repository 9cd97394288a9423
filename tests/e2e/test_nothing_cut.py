"""Nothing on the judging page is cut at a laptop's sizes: every button's label and the comment
box's placeholder fit their boxes (1366x768 and 1280x720), on a new pair, after a judgment
(Undo shown) and on an earlier pair (Back to new pairs shown)."""

from __future__ import annotations

import pytest

from tests.support.browser import shown_pair, wait_for_new_pair, wait_keys_ready

# Every button text and the comment placeholder whose content is wider than its box.
CUT = """() => {
  const cut = [];
  const labels = 'button [data-testid="stMarkdownContainer"] p, button p';
  for (const el of document.querySelectorAll(labels)) {
    if (el.scrollWidth > el.clientWidth + 1) cut.push(el.innerText);
  }
  const box = document.querySelector('[class*="st-key-comment_"] input');
  if (box) {
    const probe = document.createElement('span');
    const style = getComputedStyle(box);
    probe.style.font = style.font;
    probe.style.visibility = 'hidden';
    probe.style.position = 'absolute';
    probe.textContent = box.placeholder;
    document.body.appendChild(probe);
    const room = box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    if (probe.offsetWidth > room + 1) cut.push('placeholder: ' + box.placeholder);
    probe.remove();
  }
  return cut;
}"""


@pytest.mark.parametrize("size", [(1366, 768), (1280, 720)], ids=["1366x768", "1280x720"])
def test_no_label_or_placeholder_is_cut(app, browser, size):
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    try:
        _, tokens = app.campaign()
        app.open_as(page, tokens["ann"], "/judge")
        pair = shown_pair(page)
        assert page.evaluate(CUT) == [], "new pair"
        page.keyboard.press("1")
        pair = wait_for_new_pair(page, pair)
        assert page.evaluate(CUT) == [], "after a judgment (Undo shown)"
        page.keyboard.press("b")
        wait_for_new_pair(page, pair)
        wait_keys_ready(page)
        assert page.evaluate(CUT) == [], "an earlier pair (Back to new pairs shown)"
    finally:
        context.close()
