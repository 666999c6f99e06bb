"""One directory opener: :mod:`apollo.dirfd` is the only module that spells ``O_DIRECTORY``, and what it
opens is a real folder, never a link, never inherited by a child process.

The source tree is parsed (not grepped, so a docstring that names the flag is not a use of it)."""

from __future__ import annotations

import ast
import fcntl
import os
from pathlib import Path

import pytest

import apollo
from apollo.dirfd import open_dir

SOURCE = Path(apollo.__file__).parent
OPENER = SOURCE / "dirfd.py"
FLAG = "O_DIRECTORY"


def flag_uses(path: Path) -> list[int]:
    """Lines of ``path`` that name the flag in code (``os.O_DIRECTORY``, or the name imported bare)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [node.lineno for node in ast.walk(tree)
            if (isinstance(node, ast.Attribute) and node.attr == FLAG)
            or (isinstance(node, ast.Name) and node.id == FLAG)
            or (isinstance(node, ast.alias) and node.name == FLAG)]


def test_only_the_opener_spells_the_directory_flag() -> None:
    found = {str(path.relative_to(SOURCE)): lines for path in sorted(SOURCE.rglob("*.py"))
             if path != OPENER and (lines := flag_uses(path))}
    assert found == {}
    assert flag_uses(OPENER), "the opener itself uses the flag (so the check reads code, not nothing)"


def test_the_check_sees_a_hand_spelled_open(tmp_path: Path) -> None:
    module = tmp_path / "walker.py"
    module.write_text('import os\nfrom os import O_DIRECTORY\n\nfd = os.open("x", os.O_RDONLY | os.O_DIRECTORY)\n'
                      '"""a docstring naming O_DIRECTORY is no use of it"""\n', encoding="utf-8")
    assert flag_uses(module) == [2, 4]


def test_an_opened_folder_is_close_on_exec(tmp_path: Path) -> None:
    fd = open_dir(tmp_path)
    try:
        assert fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC
    finally:
        os.close(fd)


def test_a_link_or_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    (tmp_path / "file").write_text("x", encoding="utf-8")
    parent = open_dir(tmp_path)
    try:
        with pytest.raises(OSError):
            open_dir("link", dir_fd=parent)
        with pytest.raises(NotADirectoryError):
            open_dir("file", dir_fd=parent)
        os.close(open_dir("real", dir_fd=parent))
    finally:
        os.close(parent)
