"""Help ▸ Quick start: every bundled page opens in the help window with its screenshots
loaded, and links between pages, the contents list and Back work."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt, QUrl
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QTextBrowser

from bpe_desktop.paths import resource_path
from bpe_desktop.ui.window import help_dialogs
from bpe_desktop.ui.window.help_dialogs import (
    HELP_PAGES,
    MAX_IMAGE_WIDTH,
    HelpDialog,
    image_names,
    link_targets,
    load_image,
    page_problems,
)

SCREENSHOTS = ("training.png", "vocabulary.png", "encode.png")


@pytest.fixture
def dialog(qtbot):
    dialog = HelpDialog(None)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


@pytest.mark.parametrize("page", list(HELP_PAGES))
def test_each_page_opens_with_images_and_working_links(dialog, page):
    dialog.show_page(page)
    assert dialog.current_page() == page
    assert dialog.contents.currentRow() == list(HELP_PAGES).index(page)
    title = HELP_PAGES[page]
    assert dialog.browser.toPlainText().startswith(title)  # the page's own heading
    assert page_problems(dialog.browser) == []


def test_quick_start_shows_each_screenshot_once_fitted_to_the_window(dialog):
    document = dialog.browser.document()
    names = image_names(document)
    assert [Path(QUrl(n).path()).name for n in names] == list(SCREENSHOTS)
    assert all(n.startswith("fitted:") for n in names)  # the smoothly scaled copies
    for name in names:
        image = load_image(document, name)
        assert not image.isNull(), name
        # a real picture of the window (many colours), scaled smoothly to the page width
        assert image.width() == MAX_IMAGE_WIDTH
        colours = {image.pixel(x, y) for x in range(0, image.width(), 9)
                   for y in range(0, image.height(), 9)}
        assert len(colours) > 50, name
    for shot in SCREENSHOTS:
        original = resource_path("help", "screenshots", shot)
        assert original.stat().st_size > 10_000


def test_clicking_a_link_opens_that_page_and_back_returns(dialog, qtbot):
    browser = dialog.browser
    assert "training-options.md" in link_targets(browser.document())
    _click_link(qtbot, browser, "training-options.md")
    qtbot.waitUntil(lambda: dialog.current_page() == "training-options.md")
    assert browser.toPlainText().startswith("Training options")
    assert dialog.contents.currentItem().text() == "Training options"
    browser.backward()
    qtbot.waitUntil(lambda: dialog.current_page() == "quickstart.md")
    assert "Train your first tokenizer" in browser.toPlainText()


def test_contents_list_switches_pages(dialog):
    dialog.contents.setCurrentRow(list(HELP_PAGES).index("command-line.md"))
    assert dialog.current_page() == "command-line.md"
    assert "bpe-desktop train" in dialog.browser.toPlainText()


def test_help_window_is_reused_and_check_help_finds_nothing_wrong(qtbot):
    first = help_dialogs.show_quick_start(None)
    qtbot.addWidget(first)
    again = help_dialogs.show_help(None, "model-files.md")
    assert again is first and first.current_page() == "model-files.md"
    assert help_dialogs.check_help() == []


def test_page_problems_reports_missing_images_and_broken_links(qtbot, tmp_path):
    page = tmp_path / "broken.md"
    page.write_text("# Broken\n\n![gone](screenshots/none.png)\n\n[nowhere](missing.md) "
                    "[fine](https://example.org)\n", encoding="utf-8")
    browser = QTextBrowser()
    qtbot.addWidget(browser)
    browser.setSource(QUrl.fromLocalFile(str(page)))
    assert page_problems(browser) == [
        "help page broken.md: image screenshots/none.png does not load",
        "help page broken.md: link missing.md leads nowhere",
    ]


def _click_link(qtbot, browser: QTextBrowser, href: str) -> None:
    """Click the first link to ``href`` as a user would (scrolled into view first)."""
    document = browser.document()
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            fmt = fragment.charFormat()
            if fmt.isAnchor() and fmt.anchorHref() == href:
                cursor = QTextCursor(document)
                cursor.setPosition(fragment.position() + fragment.length() // 2)
                browser.setTextCursor(cursor)
                browser.ensureCursorVisible()
                rect = browser.cursorRect(cursor)
                point = QPoint(rect.center().x(), rect.center().y())
                qtbot.mouseClick(browser.viewport(), Qt.MouseButton.LeftButton, pos=point)
                return
            it += 1
        block = block.next()
    raise AssertionError(f"no link to {href}")
