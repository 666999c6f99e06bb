"""One way to read a rule file (apollo.rulefile): every engine's files fail the same way, in one
line that names the file and the key, and ``rule_files`` resolve against the config that named them."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apollo import config, rulefile
from apollo.errors import ConfigError
from apollo.integration import install as inst
from apollo.integration.route import load_lexicon
from apollo.renal import concentrate, condense
from apollo.renal import rules as renal_rules


def _renal(path: Path) -> object:
    return renal_rules.load_files((str(path),))


def _route(path: Path) -> object:
    return load_lexicon([path])


def _config(path: Path) -> object:
    return config.load(extra_layers=[path])


def _condense(path: Path) -> object:
    return condense.load_rules([path])


def _filter(path: Path) -> object:
    return concentrate.load((str(path),))


#: (loader, a file with an unknown key, the key named, a file with a wrong type, the key named)
LOADERS: list[tuple[Callable[[Path], object], str, str, str, str]] = [
    (_renal, '[signal.acknowledgement]\nzh = ["稳"]\nzhh = ["x"]\n', "zhh",
     '[signal.acknowledgement]\nconfidence = "high"\n', "confidence"),
    (_route, '[concepts.cache]\nwords = ["x"]\n', "concepts.cache.words",
     '[negation]\nreach = "far"\n', "negation.reach"),
    (_config, "[renal]\ntoken_threshhold = 5\n", "renal.token_threshhold",
     "[renal]\ntoken_threshold = 'many'\n", "renal.token_threshold"),
    (_renal, "[classify]\nconfirm_belw = 0.5\n", "classify.confirm_belw",
     "[classify]\nconfirm_below = true\n", "classify.confirm_below"),
    (_filter, "[filter]\nrecent_turn = 2\n", "filter.recent_turn",
     "[filter]\nrecent_turns = 2.5\n", "filter.recent_turns"),
    (_filter, '[filter.anchors]\nspecifc = ["x"]\n', "filter.anchors.specifc",
     "[filter.reabsorb]\nmin_words = '3'\n", "filter.reabsorb.min_words"),
    (_condense, "[condense]\nmax_content_los = 0.1\n", "condense.max_content_los",
     "[condense]\nmin_content_letters = 2.5\n", "condense.min_content_letters"),
    (_condense, '[condense.fr]\nhedge = ["bof"]\n', "condense.fr.hedge",
     '[condense.en]\nhedges = "you know"\n', "condense.en.hedges"),
    (_renal, '[[classify.from_user]]\nrule = "r"\ncategory = "task"\nconfidence = 0.5\nreason = "x"\nwehn = []\n',
     "classify.from_user[0].wehn",
     '[classify.keywords]\nmin_word_letters = [3]\n', "classify.keywords.min_word_letters"),
]


def _one_line_naming(error: ConfigError, path: Path, key: str) -> None:
    line = error.line()
    assert "\n" not in line
    assert str(path) in line
    assert f"'{key}'" in line


CASES = [(load, unknown, key, "unknown") for load, unknown, key, _, _ in LOADERS] + \
    [(load, wrong, key, "wrong-type") for load, _, _, wrong, key in LOADERS]


@pytest.mark.parametrize("load, text, key, fault", CASES)
def test_a_bad_key_is_one_line_naming_file_line_and_key(tmp_path: Path, load, text: str, key: str,
                                                         fault: str) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load(path)
    _one_line_naming(caught.value, path, key)
    assert caught.value.where is not None and caught.value.where.startswith(f"{path}:")  # the line, too
    if fault == "unknown":
        assert caught.value.hint  # the keys known there / what to do
    else:
        assert "must be" in caught.value.line()


@pytest.mark.parametrize("load", [_renal, _route, _condense, _filter])
@pytest.mark.parametrize("damage, said", [
    ("missing", "cannot read"), ("a-folder", "cannot read"), ("bad-toml", "not valid TOML"),
    ("not-utf8", "not UTF-8"),
])
def test_an_unusable_file_is_one_line_naming_it(tmp_path: Path, load, damage: str, said: str) -> None:
    path = tmp_path / "mine.toml"
    if damage == "a-folder":
        path.mkdir()
    elif damage == "bad-toml":
        path.write_text("[signal.x\nzh = [", encoding="utf-8")
    elif damage == "not-utf8":
        path.write_bytes(b'[condense]\nx = "\xff"\n')
    with pytest.raises(ConfigError, match=said) as caught:
        load(path)
    assert "\n" not in caught.value.line() and str(path) in caught.value.line()


def test_the_config_itself_fails_the_same_way(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[renal\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="config file is not valid TOML") as caught:
        config.load(extra_layers=[path])
    assert str(path) in caught.value.line()


def test_rule_files_resolve_against_the_naming_config_and_through_symlinks(tmp_path: Path) -> None:
    real = tmp_path / "shared" / "phrasing.toml"
    real.parent.mkdir()
    real.write_text('[concepts.cache]\nterms = ["crud pile"]\n[concepts.clean]\nkind = "action"\n'
                    'terms = ["shovel"]\n', encoding="utf-8")
    folder = tmp_path / "conf"
    folder.mkdir()
    os.symlink("../shared/phrasing.toml", folder / "mine.toml")
    (folder / "config.toml").write_text('[route]\nrule_files = ["mine.toml"]\n[renal]\nrule_files = ["mine.toml"]\n',
                                        encoding="utf-8")
    loaded = config.load(extra_layers=[folder / "config.toml"])
    assert rulefile.rule_files(loaded, "route.rule_files") == (str(real.resolve()),)
    assert rulefile.rule_files(loaded, "renal.rule_files") == (str(real.resolve()),)
    from apollo.integration.route import decide_with_config

    assert decide_with_config("shovel the crud pile", None, loaded, "en").tier == "small"


def test_a_damaged_install_manifest_stops_uninstall_before_anything_is_removed(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    inst.install(inst.openclaw_target(workspace))
    manifest = workspace / inst.MANIFEST
    data = json.loads(manifest.read_text(encoding="utf-8"))
    rel = sorted(data["files"])[0]
    data["files"][rel] = {"sha": data["files"][rel]["sha256"]}
    manifest.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        inst.uninstall(inst.openclaw_target(workspace))
    _one_line_naming(caught.value, manifest, f"files.{rel}.sha")
    assert (workspace / rel).exists()


# ---- the loader on generated TOML ------------------------------------------------------------------

class _Inner(msgspec.Struct, forbid_unknown_fields=True):
    words: list[str] = []
    weight: float = 1.0


class _Shape(msgspec.Struct, forbid_unknown_fields=True):
    name: str = ""
    count: int = 0
    on: bool = False
    inner: _Inner = msgspec.field(default_factory=_Inner)


_EXPECTED: dict[str, type | tuple[type, ...]] = {"name": str, "count": int, "on": bool, "inner.words": list,
                                                 "inner.weight": (int, float)}
_text = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=12)
_values = st.one_of(_text, st.integers(-10**6, 10**6), st.booleans(), st.lists(_text, max_size=3),
                    st.floats(allow_nan=False, allow_infinity=False))
_keys = st.sampled_from(["name", "count", "on", "nmae", "extra", "words", "weight"])


def _toml_value(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return repr(value)


def _wrong(dotted: str, value: object) -> bool:
    """Would a reader be right to refuse this key and value?"""
    expected = _EXPECTED.get(dotted)
    if expected is None:
        return True
    if isinstance(value, bool) and expected is not bool:
        return True
    if isinstance(value, list):
        return expected is not list
    return not isinstance(value, expected)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(top=st.dictionaries(_keys, _values, max_size=4), inner=st.none() | st.dictionaries(_keys, _values, max_size=3))
def test_the_loader_takes_a_good_file_and_names_the_key_of_a_bad_one(tmp_path: Path, top: dict, inner: dict | None):
    lines = [f"{k} = {_toml_value(v)}" for k, v in top.items()]
    if inner is not None:
        lines += ["[inner]", *(f"{k} = {_toml_value(v)}" for k, v in inner.items())]
    path = tmp_path / "generated.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    flat = {**top, **{f"inner.{k}": v for k, v in (inner or {}).items()}}
    bad = {dotted for dotted, value in flat.items() if _wrong(dotted, value)}
    try:
        loaded = rulefile.load(path, _Shape)
    except ConfigError as exc:
        line = exc.line()
        assert bad, line
        assert "\n" not in line and str(path) in line
        assert any(f"'{dotted}'" in line for dotted in bad), line
        return
    assert not bad
    for dotted, value in flat.items():
        got = loaded.inner if dotted.startswith("inner.") else loaded
        assert getattr(got, dotted.rpartition(".")[2]) == value


# ---- the shipped files are the defaults, the structs their shape ---------------------------------


def _shipped(relative: str, table: str | None = None) -> dict:
    import tomllib

    data = tomllib.loads((Path(config.__file__).parent / relative).read_text(encoding="utf-8"))
    return data[table] if table else data


def _shipped_tables() -> list[tuple[str, dict, object]]:
    from apollo.config_schema import ConfigFile
    from apollo.renal.rule_schema import ClassifySettings, CondenseLanguage, CondenseSettings, FilterSettings

    condense_table = _shipped("renal/rules/condense.toml", "condense")
    return [
        ("defaults.toml", _shipped("data/defaults.toml"), ConfigFile),
        ("[classify]", _shipped("renal/rules/classify.toml", "classify"), ClassifySettings),
        ("[filter]", _shipped("renal/rules/filter.toml", "filter"), FilterSettings),
        ("[condense]", {k: v for k, v in condense_table.items() if not isinstance(v, dict)}, CondenseSettings),
        ("[condense.*]", {k: v for k, v in condense_table.items() if isinstance(v, dict)},
         dict[str, CondenseLanguage]),
    ]


@pytest.mark.parametrize("name, table, schema", _shipped_tables(), ids=lambda v: v if isinstance(v, str) else "")
def test_each_shipped_table_is_complete_and_reads_back_unchanged(name: str, table: dict, schema: object) -> None:
    """Every setting is a required field: the shipped file holds every default, and the struct, its
    fields in the file's order, changes nothing of it (`apollo config show` lists them in that order)."""
    read_back = msgspec.to_builtins(rulefile.convert(table, schema, name))  # type: ignore[call-overload]
    if name == "[condense.*]":  # a language's lists are optional: one it leaves out reads back empty
        read_back = {lang: {k: v for k, v in lists.items() if v or k in table[lang]} for lang, lists in read_back.items()}
    assert read_back == table

    def tables(node: dict, prefix: str = "") -> list[str]:
        return [f"{prefix}{k}" for k in node] + [t for k, v in node.items() if isinstance(v, dict)
                                                 for t in tables(v, f"{prefix}{k}.")]

    if name != "[condense.*]":  # whose lists are merged across languages, in no order
        assert tables(read_back) == tables(table)


def test_a_users_rule_file_replaces_numbers_and_adds_to_lists(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text('[classify]\nconfirm_below = 1\n[filter]\nrecent_turns = 5\n'
                    '[filter.reabsorb]\npatterns = ["\\\\bzorblax\\\\b"]\n[filter.anchors]\nspecific = ["^Q"]\n'
                    '[condense]\nmax_content_loss = 0\n[condense.en]\nhedges = ["in a manner of speaking"]\n',
                    encoding="utf-8")
    builtin = concentrate.load()
    mine = concentrate.load((str(path),))
    assert mine["recent_turns"] == 5 and builtin["recent_turns"] != 5
    assert len(mine.reabsorb) == len(builtin.reabsorb) + 1 and mine.reabsorb[-1].search("a zorblax here")
    assert mine.anchors.specific.search("Qx") and not builtin.anchors.specific.search("Qx")
    assert all(mine.anchors.specific.search(t) for t in ("v1.2", "some_name", "camelCase"))  # the built-in ones stay
    assert mine.anchors.min_chars == builtin.anchors.min_chars  # what the file does not set stays
    assert mine.condense.max_content_loss == 0.0 and isinstance(mine.condense.max_content_loss, float)
    assert ("in", "a", "manner", "of", "speaking") in mine.condense.hedges
    assert set(builtin.condense.hedges) < set(mine.condense.hedges)
    rules = renal_rules.load_files((str(path),))
    assert rules.settings["confirm_below"] == 1.0 and isinstance(rules.settings["confirm_below"], float)
    assert rules.settings["social_max_chars"] == renal_rules.load_files().settings["social_max_chars"]


def test_a_later_config_layer_wins_and_each_value_names_its_file(tmp_path: Path) -> None:
    first, second = tmp_path / "first.toml", tmp_path / "second.toml"
    first.write_text("[renal]\ntoken_threshold = 7\nmin_exceeded = 1\n[route]\nrenal_trigger = 1\n", encoding="utf-8")
    second.write_text("[renal]\ntoken_threshold = 9\n", encoding="utf-8")
    loaded = config.load(extra_layers=[first, second])
    assert loaded.get("renal.token_threshold") == 9 and loaded.source_of("renal.token_threshold") == str(second)
    assert loaded.get("renal.min_exceeded") == 1 and loaded.source_of("renal.min_exceeded") == str(first)
    assert loaded.get("route.renal_trigger") == 1.0 and isinstance(loaded.get("route.renal_trigger"), float)
    assert loaded.source_of("renal.density_threshold") == "default"


# ---- overlay on generated layers ----------------------------------------------------------------------

class _Numbers(msgspec.Struct, forbid_unknown_fields=True):
    words: list[str]
    weight: float


class _Table(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    count: int
    inner: _Numbers


_BASE = {"name": "base", "count": 1, "inner": {"words": ["a"], "weight": 0.5}}
_LAYER_EXPECTED = {"name": str, "count": int, "inner.words": list, "inner.weight": (int, float)}


@settings(max_examples=150, deadline=None)  # no timing in unit tests: the first example imports msgspec
@given(top=st.dictionaries(st.sampled_from(["name", "count", "cuont", "words"]), _values, max_size=3),
       inner=st.none() | st.dictionaries(st.sampled_from(["words", "weight", "wieght"]), _values, max_size=2))
def test_overlay_lays_a_good_layer_over_the_base_and_names_the_key_of_a_bad_one(top: dict, inner: dict | None):
    layer = dict(top) | ({"inner": inner} if inner is not None else {})
    flat = {**top, **{f"inner.{k}": v for k, v in (inner or {}).items()}}
    bad = {d for d, v in flat.items()
           if d not in _LAYER_EXPECTED or (isinstance(v, bool) or isinstance(v, list) != (_LAYER_EXPECTED[d] is list))
           or not isinstance(v, _LAYER_EXPECTED[d])}
    before = json.loads(json.dumps(_BASE))
    try:
        merged = rulefile.overlay(_BASE, layer, f"{__name__}:_Table", "layer.toml", prefix="t", extend=("inner.words",))
    except ConfigError as exc:
        assert bad and any(f"'t.{d}'" in exc.line() for d in bad), exc.line()
        return
    finally:
        assert before == _BASE  # the base is never changed
    assert not bad
    assert merged["name"] == top.get("name", "base") and merged["count"] == top.get("count", 1)
    assert merged["inner"]["words"] == ["a", *(inner or {}).get("words", [])]  # a list named by extend adds up
    assert merged["inner"]["weight"] == float((inner or {}).get("weight", 0.5))
    assert isinstance(merged["inner"]["weight"], float)
