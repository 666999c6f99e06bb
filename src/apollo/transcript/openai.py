"""OpenAI-style chat messages: a JSON list of ``{role, content}`` or ``{"messages": [...]}``.

Content is a string or a list of parts (``{"type": "text", "text": ...}``, images, ...).
Assistant messages may carry ``tool_calls[{id, type, function{name, arguments}}]``, answered by
``{"role": "tool", "tool_call_id", "content"}`` messages. Element ids: the message's own
``id`` when it has one, else ``m<i>`` (its position); content part ``n > 0`` is ``<base>:<n>``
and tool call ``k`` is ``<base>:call<k>``. It is one JSON document, read whole (orjson); with
edits the document is written again in the same indentation.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import orjson

from apollo.errors import InputError
from apollo.transcript.base import Counter, TranscriptFormat, atomic_output, copy_bytes
from apollo.transcript.model import Edit, Element, Kind, ReadWarning, Role, dropped_ids

_ROLES = {"user": Role.USER, "assistant": Role.ASSISTANT, "system": Role.SYSTEM, "developer": Role.SYSTEM,
          "tool": Role.TOOL, "function": Role.TOOL}


def _load(path: Path) -> tuple[Any, list[Any]]:
    try:
        document = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise InputError(f"not valid JSON ({exc})", where=str(path)) from None
    messages = document.get("messages") if isinstance(document, dict) else document
    if not isinstance(messages, list):
        raise InputError("expected a JSON list of messages or an object with \"messages\"", where=str(path))
    return document, messages


def _base_ids(messages: list[Any]) -> list[str]:
    ids, seen = [], set()
    for i, message in enumerate(messages):
        own = message.get("id") if isinstance(message, dict) else None
        base = own if isinstance(own, str) and own and own not in seen else f"m{i}"
        seen.add(base)
        ids.append(base)
    return ids


def _units(message: dict[str, Any], base: str) -> Iterator[tuple[str, str, Any]]:
    """(element id, 'part' | 'call' | 'whole', index) for every element of one message."""
    content = message.get("content")
    if isinstance(content, list) and content:
        for n in range(len(content)):
            yield (base if n == 0 else f"{base}:{n}"), "part", n
    elif content or not message.get("tool_calls"):
        yield base, "whole", None
    for k in range(len(message.get("tool_calls") or [])):
        yield f"{base}:call{k}", "call", k


class OpenAIMessages(TranscriptFormat):
    name = "openai"
    where = "any OpenAI-style agent: a JSON list of {role, content} messages (or {\"messages\": [...]})"

    def sniff(self, path: Path, head: bytes) -> bool:
        text = head.lstrip()
        if text.startswith(b"["):
            return bool(re.match(rb'\[\s*(\]|\{\s*"(role|content|id|name|tool_calls)")', text))
        if not text.startswith(b"{"):
            return False
        # {"messages": [...]} -- also a whole request body ({"model": ..., "messages": [...]}); a JSONL
        # file's complete first line is one record, and a record of another format is not ours
        first = text.split(b"\n", 1)[0]
        try:
            record = orjson.loads(first)
        except orjson.JSONDecodeError:
            return re.search(rb'[{,]\s*"messages"\s*:\s*\[', text) is not None  # indented, or a long first line
        return isinstance(record, dict) and isinstance(record.get("messages"), list)

    def iter_elements(self, path: Path, warnings: list[ReadWarning], count: Counter) -> Iterator[Element]:
        _document, messages = _load(path)
        names: dict[str, str] = {}
        previous: str | None = None
        position = 0
        for i, (message, base) in enumerate(zip(messages, _base_ids(messages), strict=True)):
            if not isinstance(message, dict):
                warnings.append(ReadWarning(str(path), None, f"message {i} is not an object; kept as is"))
                continue
            role = _ROLES.get(str(message.get("role")), Role.USER)
            for element_id, unit, n in _units(message, base):
                call_id = tool_name = None
                if unit == "call":
                    call = message["tool_calls"][n] if isinstance(message["tool_calls"][n], dict) else {}
                    function = call.get("function") or {}
                    kind, text = Kind.TOOL_CALL, str(function.get("arguments", ""))
                    call_id, tool_name = call.get("id"), function.get("name")
                    if isinstance(call_id, str) and tool_name:
                        names[call_id] = tool_name
                else:
                    content = message.get("content")
                    part = content[n] if unit == "part" and isinstance(content, list) else content
                    text = _text_of(part)
                    kind = Kind.TEXT
                    if role is Role.TOOL:
                        kind, call_id = Kind.TOOL_RESULT, message.get("tool_call_id")
                        tool_name = names.get(call_id) if isinstance(call_id, str) else message.get("name")
                    elif isinstance(part, dict) and part.get("type") not in (None, "text", "input_text", "output_text"):
                        kind = Kind.METADATA
                yield Element(element_id, role, kind, text, index=position, tokens=count(text) if kind != Kind.METADATA
                              else 0, parent=previous, record_id=base, call_id=call_id, tool_name=tool_name,
                              speaker=message.get("name") if isinstance(message.get("name"), str) else None)
                previous = element_id
                position += 1

    def write(self, source: Path, dest: Path, edits: Mapping[str, Edit]) -> None:
        if not edits:
            copy_bytes(source, dest)
            return
        raw = source.read_bytes()
        document, messages = _load(source)
        bases = _base_ids(messages)
        units = {element_id: (i, unit, n) for i, (message, base) in enumerate(zip(messages, bases, strict=True))
                 if isinstance(message, dict) for element_id, unit, n in _units(message, base)}
        dropped = dropped_ids(edits, units)
        _pair(messages, units, dropped)
        for key, edit in edits.items():
            if edit.action == "replace" and edit.text is not None and key not in dropped:
                i, unit, n = units[key]
                _replace(messages[i], unit, n, edit.text)
        by_message: dict[int, list[tuple[str, str, Any]]] = {}
        for key, (i, unit, n) in units.items():
            by_message.setdefault(i, []).append((key, unit, n))
        kept: list[Any] = []
        for i, message in enumerate(messages):
            if not isinstance(message, dict):
                kept.append(message)
                continue
            mine = by_message.get(i, [])
            if mine and all(key in dropped for key, _, _ in mine):
                continue
            parts = {n for key, unit, n in mine if unit == "part" and key in dropped}
            calls = {n for key, unit, n in mine if unit == "call" and key in dropped}
            if parts:
                message["content"] = [p for n, p in enumerate(message["content"]) if n not in parts] or None
            if any(unit == "whole" and key in dropped for key, unit, _ in mine):
                message["content"] = None  # the text went, its tool calls stay: OpenAI's "content": null
            if calls:
                remaining = [c for k, c in enumerate(message["tool_calls"]) if k not in calls]
                if remaining:
                    message["tool_calls"] = remaining
                else:
                    del message["tool_calls"]
            kept.append(message)
        if isinstance(document, dict):
            document["messages"] = kept
        else:
            document = kept
        with atomic_output(dest) as out:
            out.write(_dump_like(document, raw))


def _text_of(part: Any) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part, dict):
        if isinstance(part.get("text"), str):
            return part["text"]
        return f"[{part.get('type')}]"
    if isinstance(part, list):
        return "\n".join(_text_of(p) for p in part)
    return "" if part is None else str(part)


def _pair(messages: list[Any], units: dict[str, tuple[int, str, Any]], dropped: set[str]) -> None:
    """A dropped tool call drops its tool message, and a dropped tool message its call."""
    call_keys: dict[str, str] = {}
    result_keys: dict[str, list[str]] = {}
    for key, (i, unit, n) in units.items():
        message = messages[i]
        if unit == "call" and isinstance(message["tool_calls"][n], dict):
            call_keys[str(message["tool_calls"][n].get("id"))] = key
        elif message.get("role") == "tool" and message.get("tool_call_id") is not None:
            result_keys.setdefault(str(message["tool_call_id"]), []).append(key)
    for call_id, call_key in call_keys.items():
        answers = result_keys.get(call_id, [])
        if call_key in dropped or any(a in dropped for a in answers):
            dropped.add(call_key)
            dropped.update(answers)


def _replace(message: dict[str, Any], unit: str, n: Any, text: str) -> None:
    if unit == "call":
        message["tool_calls"][n].setdefault("function", {})["arguments"] = text
    elif unit == "part":
        part = message["content"][n]
        if isinstance(part, dict):
            part["text"] = text
        else:
            message["content"][n] = text
    else:
        message["content"] = text


def _dump_like(document: Any, original: bytes) -> bytes:
    """Compact when the source was compact, else two-space indented like ``json.dumps(indent=2)``."""
    indented = re.search(rb"\n[ \t]+\S", original[:65536]) is not None
    body = orjson.dumps(document, option=orjson.OPT_INDENT_2 if indented else 0)
    return body + (b"\n" if original.endswith(b"\n") else b"")
