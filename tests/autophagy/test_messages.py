"""Autophagy's sentences about a path it leaves alone are written once, in messages.py, as
(en, zh) pairs: a copy elsewhere would drift (remove.py's used to have no Chinese at all)."""

from __future__ import annotations

import ast
from pathlib import Path

from apollo.autophagy import messages

PACKAGE = Path(messages.__file__).parent


def _pairs() -> dict[str, tuple[str, str]]:
    return {name: value for name, value in vars(messages).items()
            if name.isupper() and isinstance(value, tuple)}


def test_every_message_is_an_english_then_chinese_pair() -> None:
    pairs = _pairs()
    assert len(pairs) >= 10
    for name, (en, zh) in pairs.items():
        assert en.isascii() and en.strip(), name
        assert any("\u4e00" <= ch <= "\u9fff" for ch in zh), name
    for en, zh in (messages.recent(60), messages.symlink("a.txt")):
        assert en.isascii() and not zh.isascii()


def test_no_autophagy_module_spells_a_catalogued_sentence_again() -> None:
    sentences = {text for pair in _pairs().values() for text in pair}
    found = []
    for path in sorted(PACKAGE.glob("*.py")):
        if path.name == "messages.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in sentences:
                found.append(f"{path.name}:{node.lineno} {node.value!r}")
    assert not found, found
