"""The README and docs send no reader outside the repository: a user of the project has only the repository.

Every relative link, and every code span that names a path starting with ``../``, must resolve (from the
page's own folder) to something that exists inside the repository; and no page names the development
team's own folders (``shared/…``), which a user does not have."""

import re
from pathlib import Path

import pytest

from constants import REPO

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
#: a code span that is a relative path climbing out of its folder: ``../name…`` (``../`` alone, or
#: ``{baseDir}/../..``, describe paths, they do not point anywhere)
CLIMBING = re.compile(r"`(\.\./[\w.][^`\s]*)`")
TEAM_FOLDERS = re.compile(r"\bshared/(?:SPEC\.md|eval|samples|seeds)\b|(?<![~\w])/work/")


def outside_references(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    found = TEAM_FOLDERS.findall(text)
    targets = [t for t in LINK.findall(text) if not re.match(r"[a-z]+:|#", t)]
    for target in targets + CLIMBING.findall(text):
        resolved = (page.parent / target.split("#")[0]).resolve()
        if not resolved.is_relative_to(REPO) or not resolved.exists():
            found.append(target)
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_page_sends_no_reader_outside_the_repository(page: Path) -> None:
    assert outside_references(page) == []


def test_the_check_catches_a_path_leaving_the_repository(tmp_path: Path) -> None:
    page = REPO / "docs" / "SPEC.md"  # a real page's folder, so relative paths resolve as the docs' do
    assert outside_references(page) == []
    probe = tmp_path / "probe.md"
    probe.write_text("see `../shared/SPEC.md` and [the harness](../../eval/README.md)\n", encoding="utf-8")
    assert outside_references(probe) == ["shared/SPEC.md", "../../eval/README.md", "../shared/SPEC.md"]


def test_the_project_carries_its_own_specification() -> None:
    spec = (REPO / "docs" / "SPEC.md").read_text(encoding="utf-8")
    assert "## 1. renal" in spec and "## 2. autophagy" in spec
    assert "[docs/SPEC.md](docs/SPEC.md)" in (REPO / "README.md").read_text(encoding="utf-8")
