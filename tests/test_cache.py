"""apollo.cache: results kept between processes are only a shortcut — never a different answer."""

from __future__ import annotations

import marshal
import tomllib
from pathlib import Path

import pytest

from apollo import cache
from apollo.cache import DiskMemo, toml_loads


@pytest.fixture()
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("APOLLO_CACHE_DIR", str(folder))
    return folder


def _counting(calls: list[tuple]):  # type: ignore[no-untyped-def]
    def square_table(n: int) -> dict[str, list[int]]:
        calls.append((n,))
        return {"squares": [i * i for i in range(n)]}

    return square_table


def test_a_later_process_reads_the_result_instead_of_computing_it(cache_dir: Path) -> None:
    calls: list[tuple] = []
    first = DiskMemo("squares", _counting(calls))
    assert first(4) == {"squares": [0, 1, 4, 9]}
    first.save()  # what happens at the process's exit
    later = DiskMemo("squares", _counting(calls))  # a new process: nothing in memory
    assert later(4) == {"squares": [0, 1, 4, 9]}
    assert calls == [(4,)]
    assert later.path() is not None and later.path().parent == cache_dir  # type: ignore[union-attr]


def test_every_call_gets_its_own_copy(cache_dir: Path) -> None:
    memo = DiskMemo("squares", _counting([]))
    memo(3)["squares"].append(99)
    assert memo(3) == {"squares": [0, 1, 4]}


def test_a_damaged_file_means_computing_again(cache_dir: Path) -> None:
    calls: list[tuple] = []
    memo = DiskMemo("squares", _counting(calls))
    memo(2)
    memo.save()
    path = memo.path()
    assert path is not None
    path.write_bytes(path.read_bytes()[:7])  # truncated
    assert DiskMemo("squares", _counting(calls))(2) == {"squares": [0, 1]}
    path.write_bytes(marshal.dumps({(2,): b"\xff not marshal"}))  # an entry that does not load
    assert DiskMemo("squares", _counting(calls))(2) == {"squares": [0, 1]}
    assert len(calls) == 3


def test_an_empty_cache_dir_setting_turns_caching_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APOLLO_CACHE_DIR", "")
    monkeypatch.setenv("HOME", str(tmp_path))
    calls: list[tuple] = []
    memo = DiskMemo("squares", _counting(calls))
    memo(2)
    memo.save()
    assert memo.path() is None
    assert list(tmp_path.rglob("*.marshal")) == []


def test_an_unwritable_folder_only_means_no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would go")
    monkeypatch.setenv("APOLLO_CACHE_DIR", str(blocker / "cache"))
    memo = DiskMemo("squares", _counting([]))
    assert memo(2) == {"squares": [0, 1]}
    memo.save()  # no exception
    assert blocker.read_text() == "a file where the cache folder would go"


def test_results_that_are_not_plain_data_are_returned_but_not_kept(cache_dir: Path) -> None:
    memo = DiskMemo("objects", lambda name: Path(name))
    assert memo("x") == Path("x")
    memo.save()
    assert not cache_dir.exists() or not any(cache_dir.iterdir())


def test_a_full_file_keeps_what_this_process_used(cache_dir: Path) -> None:
    memo = DiskMemo("squares", _counting([]), max_entries=2)
    for n in range(4):
        memo(n)
    memo.save()
    later = DiskMemo("squares", _counting([]), max_entries=2)
    later(3)
    later(5)  # something new: the file is written again, with what this process used
    later.save()
    stored = marshal.loads(later.path().read_bytes())  # type: ignore[union-attr]
    assert set(stored) == {(3,), (5,)}


def test_arguments_that_are_not_plain_data_are_computed_every_time(cache_dir: Path) -> None:
    calls: list[tuple] = []
    memo = DiskMemo("squares", _counting(calls))
    assert memo(True) == {"squares": [0]}  # a bool is an int subclass marshal keeps as a bool
    memo.save()
    flags_memo = DiskMemo("flags", lambda flag: int(flag))
    import re

    assert flags_memo(re.IGNORECASE) == 2  # an int subclass marshal cannot write: not kept, not fatal
    flags_memo.save()


def test_toml_loads_gives_what_tomllib_gives(cache_dir: Path) -> None:
    rules = Path(__file__).resolve().parents[1] / "src" / "apollo" / "renal" / "rules"
    for file in sorted(rules.glob("*.toml")):
        text = file.read_text(encoding="utf-8")
        assert toml_loads(text) == tomllib.loads(text), file.name
    with pytest.raises(tomllib.TOMLDecodeError):
        toml_loads("key = = 1")
    dated = "when = 2026-11-29T10:00:00Z"  # a TOML date is no plain data: parsed, not kept
    assert toml_loads(dated) == tomllib.loads(dated)


def test_a_cache_others_can_write_is_not_read(cache_dir: Path) -> None:
    calls: list[tuple] = []
    memo = DiskMemo("squares", _counting(calls))
    memo(2)
    memo.save()
    assert cache_dir.stat().st_mode & 0o777 == 0o700
    cache_dir.chmod(0o777)  # a shared folder: anybody could have put that file there
    DiskMemo("squares", _counting(calls))(2)
    cache_dir.chmod(0o700)
    path = memo.path()
    assert path is not None
    path.chmod(0o666)
    DiskMemo("squares", _counting(calls))(2)
    path.chmod(0o644)
    DiskMemo("squares", _counting(calls))(2)  # private again: read
    assert calls == [(2,), (2,), (2,)]


def test_a_memo_file_reached_through_a_symbolic_link_is_not_read(tmp_path: Path, monkeypatch) -> None:
    """The file is checked as opened: a link could be swapped for someone else's file after a check."""
    monkeypatch.setenv("APOLLO_CACHE_DIR", str(tmp_path))
    memo = DiskMemo("linked", lambda text: text.upper())
    assert memo("a") == "A"
    memo.save()
    path = memo.path()
    assert path is not None and path.is_file()
    real = tmp_path / "elsewhere.marshal"
    path.rename(real)
    path.symlink_to(real)
    assert cache._read_ours(path) is None
    assert cache._read_ours(real) is not None
