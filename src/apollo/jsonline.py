"""JSON as orjson reads and writes it, without importing orjson where a process parses a few lines.

Every reader and writer uses orjson: on a session it is many times faster than the standard
``json``. Importing it costs a process about 7 ms (it loads dataclasses, inspect, ast, uuid and
platform), more than the heartbeat after growth spends on the few lines it parses. So these
functions use orjson once the process has imported it, and until then the standard ``json`` module
wherever it gives exactly orjson's answer; any input on which the two can differ goes to orjson: an
integer beyond 64 bits, a number too large for a float, NaN or Infinity, an escaped surrogate, text
that is not UTF-8, nesting deeper than the interpreter's recursion limit, a float to write out, and
anything ``json`` refuses (orjson's error is then the one raised). ``tests/test_jsonline.py`` compares
the two on random values and lines.
"""

from __future__ import annotations

import json
import math
import sys

#: typing is imported only by type checkers: the heartbeat imports this module on every run
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


#: orjson reads JSON nested up to 1024 deep and writes values nested less than 255 deep; inputs
#: that may come near either limit go to orjson, which then decides
_READ_DEPTH = 1000
_WRITE_DEPTH = 250
#: a text this long is read by orjson: importing it costs less than the standard module's slower parse
_LONG_TEXT = 1 << 16


class _Differs(Exception):
    """An input on which ``json`` and orjson may disagree: orjson decides."""


def _orjson() -> Any:
    import orjson

    return orjson


def _integer(text: str) -> int:
    value = int(text)
    if not -(1 << 63) <= value < 1 << 64:  # orjson reads these as floats
        raise _Differs
    return value


def _number(text: str) -> float:
    value = float(text)
    if math.isinf(value):  # orjson refuses these
        raise _Differs
    return value


def _constant(_text: str) -> Any:  # NaN, Infinity, -Infinity: orjson refuses them
    raise _Differs


def loads(data: bytes | str) -> Any:
    """``orjson.loads(data)``; raises ``ValueError`` (``orjson.JSONDecodeError``) where it does."""
    if "orjson" in sys.modules:
        return sys.modules["orjson"].loads(data)
    return loads_without_orjson(data)


def loads_with_lone_surrogates(data: bytes | str) -> Any:
    """:func:`loads`, and also what JavaScript's ``JSON.parse`` reads where orjson refuses: a string with an
    escaped lone surrogate ("\\ud83d", half of an emoji that a truncation cut in two). pi and OpenClaw load
    such a line, so Apollo must too."""
    try:
        return loads(data)
    except ValueError as error:
        return loads_refused(data, error)


def loads_refused(data: bytes | str, error: ValueError) -> Any:
    """What :func:`loads_with_lone_surrogates` reads of ``data``, which :func:`loads` (or orjson) refused with
    ``error``, without parsing it a second time as it was: each lone surrogate's escape becomes U+FFFD's (what a
    UTF-8 writer makes of one) and orjson reads the line, so that anything else it refuses it still refuses,
    with ``error``."""
    import re

    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    # every escape in turn (an escaped backslash is one, so "\\\\ud83d" is no surrogate): a pair stays
    pattern = rb"\\(?:u[dD][89abAB][0-9a-fA-F]{2}(?:\\u[dD][c-fC-F][0-9a-fA-F]{2})?|u[dD][c-fC-F][0-9a-fA-F]{2}|.)"
    fixed = re.sub(pattern, _without_lone_surrogate, raw, flags=re.DOTALL)
    if fixed == raw:
        raise error
    try:
        return loads(fixed)
    except ValueError:
        raise error from None


def _without_lone_surrogate(escape: Any) -> bytes:
    text: bytes = escape.group(0)
    return b"\\ufffd" if len(text) == 6 and text[2:3] in b"dD" else text


def dumps(value: Any) -> str:
    """``orjson.dumps(value).decode()``, for the values :func:`loads` returns."""
    if "orjson" in sys.modules:
        return str(sys.modules["orjson"].dumps(value).decode())
    return dumps_without_orjson(value)


def loads_without_orjson(data: bytes | str) -> Any:
    """:func:`loads` by the standard ``json`` wherever it agrees with orjson (orjson decides the rest)."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        if not isinstance(data, bytes):
            text.encode("utf-8")  # a lone surrogate in a str: orjson refuses it
        if "\\ud" in text or "\\uD" in text or len(text) > _LONG_TEXT or _may_nest_deeper(text, _READ_DEPTH):
            raise _Differs
        return json.loads(text, parse_constant=_constant, parse_int=_integer, parse_float=_number)
    except (ValueError, RecursionError, _Differs):  # UnicodeError is a ValueError
        return _orjson().loads(data)


def dumps_without_orjson(value: Any) -> str:
    """:func:`dumps` by the standard ``json`` unless a float is to be written (orjson writes "1e16",
    ``json`` "1e+16") or the value nests as deep as orjson refuses to write."""
    if _orjson_writes_otherwise(value, 0):
        return str(_orjson().dumps(value).decode())
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _may_nest_deeper(text: str, depth: int) -> bool:
    """Whether ``text`` opens more than ``depth`` arrays and objects in all: the standard ``json``'s own
    nesting limit differs between Python versions, so the depth is bounded here, not by it."""
    return text.count("[") + text.count("{") > depth


def _orjson_writes_otherwise(value: Any, depth: int) -> bool:
    if depth >= _WRITE_DEPTH:
        return True
    if isinstance(value, dict):
        return any(_orjson_writes_otherwise(item, depth + 1) for item in value.values())
    if isinstance(value, list):
        return any(_orjson_writes_otherwise(item, depth + 1) for item in value)
    return isinstance(value, float)
