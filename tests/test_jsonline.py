"""apollo.jsonline gives orjson's answer without orjson: the same value (types included) or an error
where orjson raises one, on random JSON lines, broken lines and the inputs where the standard
``json`` module and orjson are known to differ."""

from __future__ import annotations

import json

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from apollo.jsonline import dumps_without_orjson, loads_with_lone_surrogates, loads_without_orjson

_SCALARS = (st.none() | st.booleans() | st.integers(min_value=-(1 << 70), max_value=1 << 70)
            | st.floats(allow_nan=True, allow_infinity=True) | st.text(st.characters(codec=None)))
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=20)


def _outcome(function, data) -> str:
    """What ``function(data)`` gives, exactly (1, 1.0, -0.0 and True apart), or that it refuses it."""
    try:
        return repr(function(data))
    except ValueError:
        return "refused"


@given(_VALUES)
def test_a_line_the_standard_json_module_writes_is_read_as_orjson_reads_it(value) -> None:
    line = json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")
    assert _outcome(loads_without_orjson, line) == _outcome(orjson.loads, line)
    ascii_line = json.dumps(value).encode()  # escapes: \uXXXX, surrogates among them
    assert _outcome(loads_without_orjson, ascii_line) == _outcome(orjson.loads, ascii_line)


@given(st.binary(max_size=40) | st.text(max_size=40).map(str.encode))
def test_any_bytes_are_read_or_refused_as_orjson_does(data: bytes) -> None:
    assert _outcome(loads_without_orjson, data) == _outcome(orjson.loads, data)


@pytest.mark.parametrize("line", [
    b"NaN", b"[Infinity]", b"-Infinity", b'"\\ud800"', b'"\\udc00x"', b'"\\ud83d\\ude00"', b'"\xed\xa0\x80"',
    b"123456789012345678901234567890", b"-9223372036854775809", b"-9223372036854775808", b"18446744073709551615",
    b"18446744073709551616", b"1e400", b"-1e400", b"1.5e-400", b"-0", b"-0.0", b'{"a":1,"a":2}', b"\xef\xbb\xbf{}",
    b"[" * 1100 + b"]" * 1100, b"[" * 900 + b"]" * 900, b'"\xff"', b"{}\x0c", b'"\t"', b'"\\u0000"', b" {} \r\n",
])
def test_where_the_standard_json_module_and_orjson_differ_orjson_decides(line: bytes) -> None:
    assert _outcome(loads_without_orjson, line) == _outcome(orjson.loads, line)


@given(_VALUES)
def test_a_value_read_is_written_as_orjson_writes_it(value) -> None:
    try:
        read = orjson.loads(json.dumps(value))
    except ValueError:
        return
    assert dumps_without_orjson(read) == orjson.dumps(read).decode()


def _nested(depth: int, leaf: object = 1) -> object:
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


@pytest.mark.parametrize("depth", [10, 249, 250, 254, 255, 300, 1023, 1024, 1025, 1100])
def test_deep_nesting_is_read_and_written_as_orjson_does_on_every_python(depth: int) -> None:
    """The standard module's nesting limit follows the interpreter's recursion limit on 3.11 and not
    from 3.12 on: the depth is bounded by counting, so the answer is orjson's on both."""
    line = b"[" * depth + b"]" * depth

    def read(function) -> str:  # the depth read, walked without recursion (repr would recurse)
        try:
            value, levels = function(line), 0
        except ValueError:
            return "refused"
        while value:
            value, levels = value[0], levels + 1
        return f"{levels + 1} deep"

    assert read(loads_without_orjson) == read(orjson.loads)
    value = _nested(depth)

    def written(function) -> str:
        try:
            return str(function(value))
        except (TypeError, RecursionError):
            return "refused"

    assert written(dumps_without_orjson) == written(lambda v: orjson.dumps(v).decode())


def test_a_long_line_is_read_by_orjson_itself() -> None:
    """Past 64 KiB the standard module's slower parse costs more than importing orjson."""
    line = orjson.dumps({"text": "x" * (1 << 17), "n": [1, 2, 3]})
    assert loads_without_orjson(line) == orjson.loads(line)


def _javascript_reading(line: bytes):
    """What JSON.parse then a UTF-8 writer make of ``line``: an escaped pair of surrogates is one character,
    each lone surrogate is U+FFFD."""
    def replaced(value):
        if isinstance(value, str):
            return "".join("\ufffd" if 0xD800 <= ord(char) <= 0xDFFF else char for char in value)
        if isinstance(value, list):
            return [replaced(item) for item in value]
        if isinstance(value, dict):
            return {replaced(key): replaced(item) for key, item in value.items()}
        return value

    return replaced(json.loads(line))


#: texts with half an emoji (a lone surrogate) somewhere, or two halves that make one
_HALVES = st.tuples(st.text(max_size=6), st.lists(st.integers(0xD800, 0xDFFF).map(chr), min_size=1, max_size=2),
                    st.text(max_size=6)).map(lambda parts: parts[0] + "".join(parts[1]) + parts[2])
_WITH_HALVES = st.recursive(_HALVES | _SCALARS, lambda inner: st.lists(inner, max_size=4)
                            | st.dictionaries(_HALVES | st.text(max_size=6), inner, max_size=4), max_leaves=12)


@given(_VALUES | _WITH_HALVES)
def test_a_line_with_a_lone_surrogate_is_read_as_pi_reads_it_and_every_other_as_orjson_does(value) -> None:
    """pi and OpenClaw (JSON.parse) load a line that escapes half of an emoji; orjson refuses it. Such a line
    is read with U+FFFD in its place; on every other line the answer (or the refusal) is orjson's."""
    line = json.dumps(value).encode()  # escapes: \uXXXX, lone surrogates among them
    if _outcome(orjson.loads, line) != "refused":
        assert _outcome(loads_with_lone_surrogates, line) == _outcome(orjson.loads, line)
        return
    replaced = json.dumps(_javascript_reading(line)).encode()
    assert _outcome(loads_with_lone_surrogates, line) == _outcome(orjson.loads, replaced)
    if _outcome(orjson.loads, replaced) != "refused":
        orjson.dumps(loads_with_lone_surrogates(line))  # what is read can be written


@pytest.mark.parametrize(("line", "value"), [
    (b'{"text":"Dry-run \\ud83d\\u2026"}', {"text": "Dry-run \ufffd\u2026"}),
    (b'["\\ude00 and \\ud83d\\ude00"]', ["\ufffd and \U0001f600"]),
])
def test_half_an_emoji_is_read_as_the_replacement_character(line: bytes, value) -> None:
    assert loads_with_lone_surrogates(line) == value
    assert loads_with_lone_surrogates(line.decode()) == value


@pytest.mark.parametrize("line", [b'["\\ud83d", NaN]', b'{"a": "\\ud83d"', b'"\\ud83d" x', b"NaN", b'"\xff"',
                                  b'\xef\xbb\xbf["\\ud83d"]', b'["\\ud83d", "\xed\xa0\xbd"]'])
def test_a_line_broken_otherwise_is_still_refused(line: bytes) -> None:
    """Whatever orjson refuses besides the half (NaN, a cut line, a byte order mark, bytes that are not UTF-8)."""
    with pytest.raises(ValueError):
        loads_with_lone_surrogates(line)


def test_half_an_emoji_deep_inside_is_read_as_deep_as_orjson_reads():
    line = b"[" * 500 + b'"\\ud83d"' + b"]" * 500
    value = loads_with_lone_surrogates(line)
    for _ in range(500):
        (value,) = value
    assert value == "\ufffd"
    assert loads_with_lone_surrogates(b'"\\\\ud83d"') == "\\ud83d"  # an escaped backslash, then letters
