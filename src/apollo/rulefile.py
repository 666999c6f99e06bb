"""Reading a rule or configuration file, in one place for every engine.

Renal's rules, the condenser's, the filter's, route's phrasings, autophagy's rules, the
configuration and the install manifest are all files a person edits (or may damage). Each is read
here, so a failure reads the same wherever it happens: one :class:`~apollo.errors.ConfigError`
line that names the file, the line when it can be found, and the key, with what to do. Shapes are
msgspec structs (``forbid_unknown_fields``): an unknown or mistyped key is an error, never a silent
default. A file that only changes some settings (the user's config, a renal rule file's
``[classify]``) is laid over the built-in tables, which hold every default, and checked as a whole
(:func:`overlay`). ``rule_files`` settings are resolved here too, against the config file that named them.

msgspec is imported only when a file is checked against a struct: the heartbeat reads its
configuration through this module on every run.
"""

from __future__ import annotations

import re
from pathlib import Path

from apollo.cache import DiskMemo, toml_loads
from apollo.errors import ConfigError

#: typing is imported only by type checkers: the heartbeat imports this module on every run
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any, TypeVar

    from apollo.config import Config

    T = TypeVar("T")

def line_of(text: str, key: str) -> int | None:
    """Best-effort line number of ``key = ...`` (or of the table ``[…key]``) in a TOML text."""
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith(f"{key} ") or stripped.startswith(f"{key}=") or stripped.startswith(f'"{key}"'):
            return number
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("[") and stripped.rstrip("]").endswith(f".{key}") or stripped.strip("[]") == key:
            return number
    return None


def located(where: str, text: str | None, key: str) -> str:
    """``where`` with the line of ``key`` when the text is known and the key found in it."""
    line = line_of(text, key) if text is not None and key else None
    return f"{where}:{line}" if line is not None else where


def read_text(path: Path, *, what: str = "rule file", hint: str | None = None) -> str:
    """The file's text, or a ConfigError naming it."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{what} is not UTF-8 text ({exc.reason})", where=str(path), hint=hint) from None
    except OSError as exc:
        raise ConfigError(f"cannot read {what} ({exc.strerror or exc})", where=str(path), hint=hint) from None


def parse_toml(text: str, where: str, *, what: str = "rule file", hint: str | None = None) -> dict[str, Any]:
    """The tables of a TOML text (cached by digest, see :func:`apollo.cache.toml_loads`)."""
    try:
        return toml_loads(text)
    except ValueError as exc:  # tomllib.TOMLDecodeError
        raise ConfigError(f"{what} is not valid TOML: {exc}", where=where,
                          hint=hint or "fix the file or move it away") from None


def read_toml(path: Path, *, what: str = "rule file", hint: str | None = None) -> tuple[dict[str, Any], str]:
    """The tables of a TOML file and its text (for line numbers in later errors)."""
    text = read_text(path, what=what, hint=hint)
    return parse_toml(text, str(path), what=what, hint=hint), text


def _fits(value: Any, schema: Any) -> bool:
    import msgspec

    try:
        msgspec.convert(value, schema)
    except msgspec.ValidationError:
        return False
    return True


def _inner(schema: Any, node: Any, part: str) -> tuple[Any, Any, str]:
    """One step down a path: (the schema there, the data there, the part's name). msgspec names a
    dictionary's entry ``[...]``: the name given is that of the first entry that does not fit."""
    import types
    import typing

    import msgspec

    args = [a for a in typing.get_args(schema) if a is not type(None)]
    if typing.get_origin(schema) in (typing.Union, types.UnionType) and len(args) == 1:  # X | None: X
        schema = args[0]
        args = list(typing.get_args(schema))
    origin = typing.get_origin(schema)
    if isinstance(schema, type) and issubclass(schema, msgspec.Struct):
        field = next((f for f in msgspec.structs.fields(schema) if f.encode_name == part), None)
        return (field.type if field else None), (node.get(part) if isinstance(node, dict) else None), part
    if origin is dict:
        value_schema = args[1]
        if part == "..." and isinstance(node, dict):
            part = next((str(k) for k, v in node.items() if not _fits(v, value_schema)), part)
        return value_schema, (node.get(part) if isinstance(node, dict) else None), part
    if origin in (list, tuple) and part.isdigit():
        index = int(part)
        item = node[index] if isinstance(node, list) and index < len(node) else None
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            return (args[index] if index < len(args) else None), item, part
        return args[0], item, part
    return None, None, part


def _walk(schema: Any, data: Any, parts: list[str]) -> tuple[list[str], Any]:
    """The path's parts with dictionary entries named, and the schema found at its end."""
    named: list[str] = []
    for part in parts:
        if schema is None:
            named.append(part)
            continue
        schema, data, name = _inner(schema, data, part)
        named.append(name)
    return named, schema


def _path_parts(path: str) -> list[str]:
    """``.intents[0].name`` -> ["intents", "0", "name"]; ``.protect[...]`` -> ["protect", "..."]."""
    return ["..." if p == "\x00" else p for p in re.split(r"[.\[\]]", path.replace("[...]", ".\x00")) if p]


def _dotted_name(parts: list[str]) -> str:
    return ".".join(p if not p.isdigit() else f"[{p}]" for p in parts).replace(".[", "[")


#: msgspec's names of JSON types as a TOML file calls them
_TOML_WORDS = {"object": "a table", "array": "a list"}


def validation_error(exc: Exception, schema: Any, data: Any, where: str, text: str | None, *, what: str,
                     hint: str | None, prefix: str = "") -> ConfigError:
    """msgspec's ValidationError as one line that says which key is wrong and how (its dotted name
    under ``prefix``, the table ``data`` was read from)."""
    import msgspec

    def _dotted(parts: list[str]) -> str:
        return _dotted_name([*prefix.split("."), *parts] if prefix else parts)

    found = re.match(r"(?P<what>.*?)(?: - at `\$(?P<path>[^`]*)`)?\Z", str(exc), re.DOTALL)
    message, path = (found["what"], found["path"] or "") if found else (str(exc), "")
    parts, here = _walk(schema, data, _path_parts(path))
    last = next((p for p in reversed(parts) if not p.isdigit()), prefix.rpartition(".")[2])
    unknown = re.fullmatch(r"Object contains unknown field `(?P<key>[^`]*)`", message)
    missing = re.fullmatch(r"Object missing required field `(?P<key>[^`]*)`", message)
    expected = re.fullmatch(r"Expected `(?P<want>[^`]*)`, got `(?P<got>[^`]*)`", message)
    if unknown:
        known = [f.encode_name for f in msgspec.structs.fields(here)] \
            if isinstance(here, type) and issubclass(here, msgspec.Struct) else []
        return ConfigError(f"{what}: unknown key '{_dotted([*parts, unknown['key']])}'",
                           where=located(where, text, unknown["key"]),
                           hint=f"known keys here: {', '.join(known)}" if known else hint)
    if missing:
        return ConfigError(f"{what}: '{_dotted([*parts, missing['key']])}' is missing",
                           where=located(where, text, last), hint=hint)
    if expected:
        want, got = (_TOML_WORDS.get(expected[k], expected[k]) for k in ("want", "got"))
        return ConfigError(f"{what}: '{_dotted(parts)}' must be {want}, got {got}",
                           where=located(where, text, last), hint=hint)
    return ConfigError(f"{what}: {' '.join(message.split())}" + (f" at '{_dotted(parts)}'" if parts else ""),
                       where=located(where, text, last), hint=hint)


def convert(data: Any, schema: type[T], where: str, *, text: str | None = None, what: str = "rule file",
            hint: str | None = None, prefix: str = "") -> T:
    """``data`` (tables from TOML or JSON, the table ``prefix`` of a file) as an instance of ``schema``."""
    import msgspec

    try:
        return msgspec.convert(data, schema)
    except msgspec.ValidationError as exc:
        raise validation_error(exc, schema, data, where, text, what=what, hint=hint, prefix=prefix) from None


def _laid_over(base: Any, layer: Any, extend: tuple[str, ...], dotted: str) -> Any:
    """A copy of ``base`` with ``layer`` over it: tables merge key by key, lists named by ``extend``
    add up, any other value replaces."""
    from fnmatch import fnmatch

    if isinstance(base, dict) and isinstance(layer, dict):
        merged = dict(base)
        for key, value in layer.items():
            name = f"{dotted}.{key}" if dotted else str(key)
            merged[key] = _laid_over(base[key], value, extend, name) if key in base else value
        return merged
    if isinstance(base, list) and isinstance(layer, list) and any(fnmatch(dotted, p) for p in extend):
        return [*base, *layer]
    return layer


def _leaves(layer: dict[str, Any], dotted: str = "") -> Iterator[tuple[str, str]]:
    """(dotted name, key) of each value a file's table sets."""
    for key, value in layer.items():
        name = f"{dotted}.{key}" if dotted else key
        if isinstance(value, dict):
            yield from _leaves(value, name)
        else:
            yield name, key


def _at(tables: Any, dotted: str) -> Any:
    """The value at ``dotted``, None where there was none (a table a dictionary schema allows)."""
    for part in dotted.split("."):
        tables = tables.get(part) if isinstance(tables, dict) else None
    return tables


def _schema(name: str) -> Any:
    """The schema named ``module:Name``."""
    import importlib

    module, _, attribute = name.partition(":")
    return getattr(importlib.import_module(module), attribute)


def _schema_source(name: str) -> bytes:
    """The text of the module that defines the schema ``module:Name`` (read, not imported)."""
    import importlib.util

    spec = importlib.util.find_spec(name.partition(":")[0])
    return Path(spec.origin).read_bytes() if spec is not None and spec.origin else b""


def _checked(base: Any, layer: Any, schema: str, extend: tuple[str, ...], where: str, text: str | None, what: str,
             hint: str | None, prefix: str) -> Any:
    import msgspec

    shape = _schema(schema)
    merged = _laid_over(base, layer, extend, "")
    return msgspec.to_builtins(convert(merged, shape, where, text=text, what=what, hint=hint, prefix=prefix))


#: a layer found to fit is not checked again while the tables and the schema's module stay the
#: same: msgspec (and the typing it loads) would cost a heartbeat with a user's config a quarter
#: of its time
_overlaid = DiskMemo("overlay", _checked, max_entries=64)


def overlay(base: dict[str, Any], layer: Any, schema: str, where: str, *, text: str | None = None,
            what: str = "rule file", hint: str | None = None, prefix: str = "", extend: tuple[str, ...] = (),
            taken: Callable[[str, Any, Any, str], None] | None = None) -> Any:
    """One file's table ``layer`` over ``base``, the table so far (built-in, then earlier files; not
    changed), checked as a whole against the struct ``schema`` (named ``module:Name``, imported only
    when the check runs): the result as plain data, numbers in the schema's types. Lists whose
    dotted name (under the table) matches a pattern of ``extend`` add up; every other value replaces
    the one before. ``taken(dotted, before, after, where)`` is told of each value the layer sets
    once the whole table fits, and may still refuse it."""
    import hashlib
    import marshal

    args = (base, layer, schema, extend, where, text, what, hint, prefix)
    try:
        key = hashlib.sha256(marshal.dumps((base, layer, schema, _schema_source(schema), extend))).digest()
    except ValueError:  # not plain data (a TOML date): checked, not kept
        result = _checked(*args)
    else:
        result = _overlaid.keyed(key, *args)
    if taken is not None and isinstance(layer, dict):
        for dotted, key_name in _leaves(layer):
            taken(f"{prefix}.{dotted}" if prefix else dotted, _at(base, dotted), _at(result, dotted),
                  located(where, text, key_name))
    return result


def load(path: Path, schema: type[T], *, what: str = "rule file", hint: str | None = None) -> T:
    """A TOML file read and checked against ``schema``."""
    data, text = read_toml(path, what=what, hint=hint)
    return convert(data, schema, str(path), text=text, what=what, hint=hint)


def decode_json(raw: bytes, schema: type[T], where: str, *, what: str, hint: str | None = None) -> T:
    """A JSON document checked against ``schema`` (the install manifest)."""
    import msgspec

    try:
        return msgspec.json.decode(raw, type=schema)
    except msgspec.ValidationError as exc:
        raise validation_error(exc, schema, msgspec.json.decode(raw), where, None, what=what, hint=hint) from None
    except msgspec.DecodeError as exc:
        raise ConfigError(f"{what} is not valid JSON ({exc})", where=where, hint=hint) from None


def rule_files(config: Config, dotted: str) -> tuple[str, ...]:
    """The files of the setting ``dotted`` (``renal.rule_files``, ``route.rule_files``, …) as absolute
    paths, symlinks resolved: relative ones against the folder of the config file that named them
    (the working folder for the built-in defaults)."""
    source = config.source_of(dotted)
    base = Path(source).parent if source != "default" else Path.cwd()
    return tuple(str((base / Path(f).expanduser()).resolve()) for f in config.get(dotted))
