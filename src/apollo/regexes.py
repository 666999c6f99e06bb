"""Compiled regular expressions kept between processes, as ``.pyc`` files keep compiled code.

Apollo's rules become about 120 regular expressions, several of them large (lexicons shaped as
prefix trees, Chinese character classes). Python's ``re`` parses and compiles a pattern in
pure Python, which costs a heartbeat about 40 ms, three times the interpreter's own start.
What that work produces is a list of integers handed to ``_sre.compile``; this module keeps
those lists in Apollo's cache folder (:class:`apollo.cache.DiskMemo`), keyed by the pattern, its
flags and the regex engine's version, and hands them straight to ``_sre`` next time.

The engine's input is private to CPython, so the cache is only a shortcut: a first use checks
that a program built this way matches like ``re.compile``'s, any surprise turns the cache off,
and ``_sre`` validates a program before accepting it (a damaged entry fails to build, and the
pattern is compiled as usual).
"""

from __future__ import annotations

import array
import functools
import re

from apollo.cache import DiskMemo

#: (final flags, program as native 32-bit words, groups - 1, group index, index group)
_Program = tuple[int, bytes, int, dict[str, int], tuple[str | None, ...]]


def compile(pattern: str, flags: int = 0) -> re.Pattern[str]:  # noqa: A001 - the name re users expect
    """``re.compile(pattern, flags)``, from the cached program when there is one."""
    flags = int(flags)
    if _engine_as_expected():
        try:
            return _build(pattern, _programs(pattern, flags))
        except re.error:
            raise
        except Exception:  # noqa: BLE001 - a damaged entry or an engine this module does not know
            pass
    return re.compile(pattern, flags)


def _program(pattern: str, flags: int) -> _Program:
    from re import _compiler, _parser  # type: ignore[attr-defined]

    parsed = _parser.parse(pattern, flags)
    code = _compiler._code(parsed, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    return (int(flags | parsed.state.flags), array.array("I", code).tobytes(), parsed.state.groups - 1,
            groupindex, tuple(indexgroup))


def _build(pattern: str, program: _Program) -> re.Pattern[str]:
    import _sre

    final_flags, words, groups, groupindex, indexgroup = program
    code = array.array("I")
    code.frombytes(words)
    return _sre.compile(pattern, final_flags, code.tolist(), groups, groupindex, indexgroup)


def _cache_name() -> str:
    import _sre

    return f"regex-sre{_sre.MAGIC}-{array.array('I').itemsize}"


_programs = DiskMemo(_cache_name(), _program)


@functools.cache
def _engine_as_expected() -> bool:
    """A program built here must behave as ``re.compile``'s: checked once per process on a small
    pattern with every feature the cache passes along (named groups, flags)."""
    probe, flags = r"(?P<word>[a-z]+)\s*(\d)?", re.IGNORECASE | re.MULTILINE
    try:
        built = _build(probe, _program(probe, int(flags)))
    except Exception:  # noqa: BLE001
        return False
    expected = re.compile(probe, flags)
    sample = "x Word 7\nabc"
    return (built.flags == expected.flags and built.groupindex == expected.groupindex
            and [m.groups() for m in built.finditer(sample)] == [m.groups() for m in expected.finditer(sample)])
