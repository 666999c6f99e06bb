"""What a message is worth under a budget: specific words (dates, quantities, names) weigh more,
so a message a later question can be about outlasts chatter of the same length."""

from __future__ import annotations

import json
from pathlib import Path

from apollo import config as config_mod
from apollo.renal import concentrate
from apollo.renal.condense import Condenser
from apollo.renal.filter import filter_path
from apollo.renal.salience import information, specifics

RULES = concentrate.load()
CONDENSER = Condenser(RULES.condense)


def test_dates_quantities_and_names_are_specific_and_a_participants_name_is_not() -> None:
    found = specifics("Ana told me that Jorge moved to Porto last weekend, 3 km from the river.", RULES,
                      CONDENSER, frozenset({"ana"}))
    assert {"jorge", "porto", "last", "weekend", "3"} <= found
    assert not found & {"ana", "told", "moved", "river"}


def test_a_specific_message_is_worth_more_than_one_as_long_without_specifics() -> None:
    texts = ["We talked about the garden and the painting for a while.",
             "We drove to Porto with Jorge last weekend for the festival.",
             "We talked about the kitchen and the lamps for a while."]
    plain = information(texts, CONDENSER)
    weighted = information(texts, CONDENSER, RULES)
    assert weighted[1] / weighted[0] > plain[1] / plain[0]
    assert weighted[0] == plain[0] and weighted[2] == plain[2]


_CHATTER = ["The soup tasted rich and the bread was warm.", "My garden smells of mint and wet soil.",
            "That song makes me dance around the kitchen.", "The blanket feels soft and the tea is hot.",
            "Our cat sleeps all day on the sunny windowsill.", "Painting the fence turned into a messy game.",
            "The puzzle took hours but the picture is pretty.", "Rain on the roof always makes me sleepy.",
            "Those cookies came out crunchy and sweet today.", "The candle smells like pine and vanilla."]


def _kept_under_budget(tmp_path: Path, config: config_mod.Config | None) -> set[str]:
    turns = [("Ana" if i % 2 == 0 else "Bo", text) for i, text in enumerate(_CHATTER)]
    turns.insert(3, ("Bo", "Jorge drove us to Porto last weekend."))
    source = tmp_path / "chat.jsonl"
    source.write_text("".join(json.dumps({"id": f"m{i}", "role": "user" if who == "Ana" else "assistant",
                                          "speaker": who, "text": text}) + "\n"
                              for i, (who, text) in enumerate(turns)), encoding="utf-8")
    output = tmp_path / "out.jsonl"
    filter_path(source, "jsonl", config, keep_ratio=0.35, output=output, workspace=tmp_path, overwrite=True)
    return {json.loads(line)["id"] for line in output.read_text(encoding="utf-8").splitlines()}


def test_under_a_tight_budget_the_dated_named_event_outlasts_chatter_as_long(tmp_path: Path) -> None:
    assert "m3" in _kept_under_budget(tmp_path, None)
    (tmp_path / "flat.toml").write_text("[filter]\nspecific_weight = 1.0\n", encoding="utf-8")
    (tmp_path / "config.toml").write_text('[renal]\nrule_files = ["flat.toml"]\n', encoding="utf-8")
    flat = config_mod.load(None, extra_layers=[tmp_path / "config.toml"])
    assert "m3" not in _kept_under_budget(tmp_path, flat)  # without the weight, plain tf-idf lets it go
