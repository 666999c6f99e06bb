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


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
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
