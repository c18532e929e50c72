"""The built site in a real browser (``make docs-check``): headless Chromium opens every page of ``site/``
at 1280 px and checks that it loads with no console error and no failed request, that every image loaded,
that no raw Sphinx role (``:class:`` ...) shows, that no table needs a sideways scroll, and that code blocks
never wrap (a long line scrolls inside its block rather than breaking a path mid-word);
a screenshot of each page goes to ``site-check/``. The site's search finds ``Trainer``.

Without Debian's chromium, Playwright or a built site the checks skip, saying why; with ``CI=true`` a
missing browser fails them instead (CI installs it, so a skip there would hide a broken install).
"""

from __future__ import annotations

import functools
import http.server
import os
import re
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
RAW_ROLE = re.compile(r":(class|meth|func|mod|attr|data|exc|obj|ref):`")
# What overflows its box sideways: tables (the text column is what a reader scrolls).
OVERFLOW_JS = """() => [...document.querySelectorAll('.md-content table, .md-typeset__scrollwrap')]
  .filter(e => e.scrollWidth > e.clientWidth + 1)
  .map(e => e.tagName + ': ' + e.textContent.trim().slice(0, 60))"""
# Code that wraps: a path or a command broken mid-word reads as two (code blocks scroll instead).
WRAPPING_CODE_JS = """() => [...document.querySelectorAll('.md-content pre > code')]
  .filter(e => getComputedStyle(e).whiteSpace !== 'pre')
  .map(e => e.textContent.trim().slice(0, 60))"""
BROKEN_IMAGES_JS = (
    """() => [...document.images].filter(i => i.complete && i.naturalWidth === 0).map(i => i.src)"""
)

pytestmark = pytest.mark.browser


def _pages() -> list[str]:
    """Every page of the built site, as its path under the site's root (``""`` is the home page)."""
    if not SITE.is_dir():
        return []
    paths = [p.parent.relative_to(SITE) for p in SITE.rglob("index.html") if "assets" not in p.parts]
    return sorted("" if rel == Path() else f"{rel}/" for rel in paths)


def _missing(what: str) -> None:
    """Skips, or fails under CI, where the browser or the site is missing."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} (CI=true: the browser check must run)")
    pytest.skip(what)


@pytest.fixture(scope="module")
def site_url() -> Iterator[str]:
    if not (SITE / "index.html").is_file():
        _missing(f"no built site in {SITE}: run `make docs` first")
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
        _missing("Debian's chromium is not installed (apt-get install chromium): no browser to check with")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("the docs extra (playwright) is missing")
    with sync_playwright() as playwright:
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


def test_the_site_has_every_page_of_the_navigation() -> None:
    if not SITE.is_dir():
        _missing(f"no built site in {SITE}: run `make docs` first")
    assert len(_pages()) >= 40


@pytest.mark.parametrize("path", _pages())
def test_a_page_renders_cleanly_at_1280_px(browser: Any, site_url: str, path: str) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on("requestfailed", lambda request: problems.append(f"failed request: {request.url}"))
    page.on("response", lambda r: problems.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)
    page.goto(site_url + path, wait_until="networkidle")
    problems += [f"broken image: {src}" for src in page.evaluate(BROKEN_IMAGES_JS)]
    problems += [f"needs a sideways scroll: {what}" for what in page.evaluate(OVERFLOW_JS)]
    problems += [f"code block wraps: {what}" for what in page.evaluate(WRAPPING_CODE_JS)]
    text = page.inner_text("body")
    problems += [f"raw role: {m.group(0)}" for m in RAW_ROLE.finditer(text)]
    SHOTS.mkdir(exist_ok=True)
    shot = SHOTS / f"{path.strip('/').replace('/', '_') or 'home'}.png"
    page.screenshot(path=str(shot), full_page=False)
    page.close()
    assert problems == []
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
