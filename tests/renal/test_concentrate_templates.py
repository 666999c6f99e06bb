"""The markers a rule file may reword are checked when the rules are read: a stray field is named there,
not found by the first cut (in the context engine, every turn over its budget)."""

from __future__ import annotations

from pathlib import Path

import pytest

from apollo.errors import ConfigError
from apollo.renal import concentrate


@pytest.mark.parametrize(("line", "key"), [('tool_recall_en = "(recall {idx})"', "tool_recall_en"),
                                           ('tool_marker_zh = "{"', "tool_marker_zh"),
                                           ('tool_argument_marker = "{0} cut"', "tool_argument_marker")])
def test_a_template_with_a_field_it_is_not_given_is_named(tmp_path: Path, line: str, key: str) -> None:
    mine = tmp_path / "mine.toml"
    mine.write_text(f"[filter]\n{line}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=f"filter.{key}"):
        concentrate.load((str(mine),), concentrate.file_stamps((str(mine),)))


def test_a_reworded_template_with_its_fields_is_taken(tmp_path: Path) -> None:
    mine = tmp_path / "mine.toml"
    mine.write_text('[filter]\ntool_recall_en = "(recall {id} for all of it)"\n', encoding="utf-8")
    rules = concentrate.load((str(mine),), concentrate.file_stamps((str(mine),)))
    assert rules.settings["tool_recall_en"] == "(recall {id} for all of it)"
