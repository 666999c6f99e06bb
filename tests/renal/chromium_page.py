"""Headless Chromium for the HTML report tests: install when missing, load a page, read it back.

Chromium is Debian's ``chromium`` package. CI runs as root on a fresh machine, so the fixture
installs it (with a small CJK font, so screenshots of Chinese sessions are legible) under a
lock that keeps two xdist workers from running apt at once. The page is loaded twice: once
with ``--dump-dom`` (the DOM after the page's own script ran) and once with ``--screenshot``.
``--enable-logging=stderr`` makes Chromium print every console message and uncaught error of
the page as ``CONSOLE`` lines, which the tests require to be absent.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest
from filelock import FileLock

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
         "--enable-logging=stderr", "--v=0"]
PACKAGES = ["chromium", "fonts-wqy-microhei", "fonts-noto-color-emoji"]
_CONSOLE = re.compile(r":CONSOLE[:(]\d*\)?\] (.*)")


def find_or_install_chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        pytest.skip("headless Chromium is missing and cannot be installed here (needs root and apt-get): "
                    "apt-get install chromium fonts-wqy-microhei")
    with FileLock("/tmp/apollo-test-chromium-install.lock", timeout=1800):
        found = shutil.which("chromium")
        if found:
            return found
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update"], check=True, capture_output=True, env=env, timeout=900)
        subprocess.run(["apt-get", "install", "-y", *PACKAGES], check=True, capture_output=True, env=env,
                       timeout=1800)
    found = shutil.which("chromium")
    assert found, "apt-get installed chromium but it is not on PATH"
    return found


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    text: str = ""


@dataclass
class Page:
    dom: str
    console: list[str]
    nodes: list[Node] = field(default_factory=list)

    def select(self, tag: str | None = None, **attrs: str | None) -> list[Node]:
        """Nodes with this tag whose attributes match (``None`` = attribute present, any value)."""
        found = []
        for node in self.nodes:
            if tag and node.tag != tag:
                continue
            if all(key in node.attrs and (value is None or node.attrs[key] == value)
                   for key, value in ((k.replace("_", "-"), v) for k, v in attrs.items())):
                found.append(node)
        return found

    def with_class(self, tag: str, css_class: str) -> list[Node]:
        return [n for n in self.nodes if n.tag == tag and css_class in n.attrs.get("class", "").split()]


class _Collector(HTMLParser):
    """Every element with its attributes and its own text (enough to check what the page shows)."""

    _VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.nodes: list[Node] = []
        self.stack: list[Node] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {key: value or "" for key, value in attrs})
        self.nodes.append(node)
        if tag not in self._VOID:
            self.stack.append(node)

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop().tag == tag:
                break

    def handle_data(self, data: str) -> None:
        for node in self.stack:
            node.text += data


def load(chromium: str, html: Path, profile: Path, screenshot: Path | None = None,
         window: tuple[int, int] = (1280, 2200)) -> Page:
    """The DOM of ``html`` after its scripts ran, the page's console lines, and optionally a PNG."""
    url = html.resolve().as_uri()
    base = [chromium, *FLAGS, f"--user-data-dir={profile}"]
    dumped = subprocess.run([*base, "--dump-dom", url], capture_output=True, text=True, timeout=180)
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    console = [m.group(1) for m in _CONSOLE.finditer(dumped.stderr)]
    if screenshot is not None:
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        shot = subprocess.run([*base, f"--screenshot={screenshot}", f"--window-size={window[0]},{window[1]}", url],
                              capture_output=True, text=True, timeout=180)
        assert shot.returncode == 0, shot.stderr[-2000:]
        console += [m.group(1) for m in _CONSOLE.finditer(shot.stderr)]
    collector = _Collector()
    collector.feed(dumped.stdout)
    return Page(dumped.stdout, console, collector.nodes)
