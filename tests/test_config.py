from pathlib import Path

import pytest

from apollo import config
from apollo.errors import ConfigError


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_have_the_spec_thresholds(tmp_path: Path) -> None:
    merged = config.load(tmp_path)
    assert merged.get("renal.token_threshold") == 50000
    assert merged.get("renal.density_threshold") == 0.5
    assert merged.get("renal.confirmation_threshold") == 5
    assert merged.get("autophagy.snapshot_retention_days") == 7
    assert merged.source_of("renal.token_threshold") == "default"


def test_workspace_layer_wins_over_user_layer(tmp_path: Path, isolated_home: Path) -> None:
    user = write(config.user_config_path(), "[renal]\ntoken_threshold = 1000\ndensity_threshold = 0.4\n")
    workspace = tmp_path / "ws"
    ws_file = write(config.workspace_config_path(workspace), "[renal]\ntoken_threshold = 2000\n")
    merged = config.load(workspace)
    assert merged.get("renal.token_threshold") == 2000
    assert merged.source_of("renal.token_threshold") == str(ws_file)
    assert merged.get("renal.density_threshold") == 0.4
    assert merged.source_of("renal.density_threshold") == str(user)
    assert str(user).startswith(str(isolated_home))


def test_int_accepted_where_float_expected(tmp_path: Path) -> None:
    write(config.workspace_config_path(tmp_path), "[renal]\ndensity_threshold = 1\n")
    value = config.load(tmp_path).get("renal.density_threshold")
    assert value == 1.0 and isinstance(value, float)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[renal]\ntoken_threshhold = 5\n", "unknown key 'renal.token_threshhold'"),
        ("[renal]\ntoken_threshold = 'many'\n", "'renal.token_threshold' must be int"),
        ("[renal\n", "not valid TOML"),
        ("renal = 3\n", "'renal' must be a table"),
        ("[renal]\nkeep_patterns = 'x'\n", "'renal.keep_patterns' must be a list"),
    ],
)
def test_bad_config_names_file_line_and_key(tmp_path: Path, text: str, needle: str) -> None:
    path = write(config.workspace_config_path(tmp_path), text)
    with pytest.raises(ConfigError) as info:
        config.load(tmp_path)
    line = info.value.line()
    assert needle in line
    assert str(path) in line


def test_unknown_key_error_points_at_its_line(tmp_path: Path) -> None:
    path = write(config.workspace_config_path(tmp_path), "# comment\n[renal]\n\nbogus = 1\n")
    with pytest.raises(ConfigError) as info:
        config.load(tmp_path)
    assert info.value.where == f"{path}:4"


def test_invalid_utf8_config_is_a_clear_error(tmp_path: Path) -> None:
    path = config.workspace_config_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"[renal]\nkeep_patterns = ['\xff']\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        config.load(tmp_path)


def _load_in_a_new_process(config_file: Path, cache: Path) -> tuple[int, str]:
    """(exit code, output) of a process that loads the config: 'msgspec' or 'light', then the value."""
    import os
    import subprocess
    import sys

    probe = ("import sys\nfrom pathlib import Path\nfrom apollo import config\nfrom apollo.errors import ConfigError\n"
             "try:\n    loaded = config.load(extra_layers=[Path(sys.argv[1])])\n"
             "except ConfigError as exc:\n    print(exc.line()); sys.exit(1)\n"
             "print('msgspec' if 'msgspec' in sys.modules else 'light', loaded.get('renal.token_threshold'))")
    done = subprocess.run([sys.executable, "-c", probe, str(config_file)], capture_output=True, text=True,
                          env={**os.environ, "APOLLO_CACHE_DIR": str(cache)})
    return done.returncode, done.stdout.strip()


def test_a_config_once_checked_costs_no_check_until_it_changes(tmp_path: Path) -> None:
    """The heartbeat reads the user's config on every run: a file found good is not checked again
    (msgspec is not even imported), and an edited one is, bad keys and all."""
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    path = write(tmp_path / "config.toml", "[renal]\ntoken_threshold = 7\n")
    assert _load_in_a_new_process(path, cache) == (0, "msgspec 7")
    assert _load_in_a_new_process(path, cache) == (0, "light 7")
    write(path, "[renal]\ntoken_threshold = 8\n")
    assert _load_in_a_new_process(path, cache) == (0, "msgspec 8")
    write(path, "[renal]\ntoken_threshold = 8\ntoken_treshold = 9\n")
    code, said = _load_in_a_new_process(path, cache)
    assert code == 1 and "unknown key 'renal.token_treshold'" in said and f"{path}:3" in said
    assert _load_in_a_new_process(path, cache)[0] == 1  # a bad file is never remembered as good
