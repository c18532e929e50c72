"""The built site in a real browser (``make docs-check``): headless Chromium opens the home page, an API page
and a tutorial, each renders (a screenshot that is not blank, kept in ``site-check/``), the console shows no
error, and the site's search finds ``Trainer``. Skipped, saying why, without Debian's chromium, Playwright
or a built site."""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "site"
SHOTS = ROOT / "site-check"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# The flags of a closed network: without them Chromium keeps reaching for Google's services.
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip
PAGES = {"home": "", "api": "reference/", "tutorial": "tutorials/custom-env/"}

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def site_url() -> Iterator[str]:
    if not (SITE / "index.html").is_file():
        pytest.skip(f"no built site in {SITE}: run `make docs` first")
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium): no browser to check with")
    playwright_api = pytest.importorskip(
        "playwright.sync_api", reason="the docs extra (playwright) is missing"
    )
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            yield browser
        finally:
            browser.close()


def _is_blank(png: Path) -> bool:
    """A screenshot with almost no variation (one flat colour) rendered nothing."""
    from matplotlib.image import imread

    pixels = np.asarray(imread(png))[..., :3]
    return float(pixels.std()) < 0.02


@pytest.mark.parametrize("name", PAGES)
def test_a_page_renders_without_console_errors(browser: Any, site_url: str, name: str) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(site_url + PAGES[name], wait_until="networkidle")
    SHOTS.mkdir(exist_ok=True)
    shot = SHOTS / f"{name}.png"
    page.screenshot(path=str(shot), full_page=False)
    page.close()
    assert errors == []
    assert not _is_blank(shot)


def test_the_search_finds_trainer(browser: Any, site_url: str) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(site_url, wait_until="networkidle")
    page.click("label.md-search__icon, .md-search__input")
    page.locator("input.md-search__input").press_sequentially("Trainer", delay=50)  # keystrokes, as typed
    results = page.locator(".md-search-result__item")
    results.first.wait_for(timeout=15_000)
    texts = results.all_inner_texts()
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "search.png"))
    page.close()
    assert any("Trainer" in text for text in texts), texts
