"""What OpenClaw's format says as data: its entry types, how pi wraps a summary for the model,
and the envelope and heartbeat rules (``data/transcript_openclaw.toml``) the reader applies."""

from __future__ import annotations

import bisect
import functools
import itertools
import json
import re
from pathlib import Path

from apollo.cache import toml_loads
from apollo.patterns import LazyPattern
from apollo.records import slotted
from apollo.transcript import fences

BOUNDARIES = ("compaction", "reset")
#: how pi shows the model a compaction's / a branch's summary (core/messages.js COMPACTION_SUMMARY_PREFIX and
#: _SUFFIX, BRANCH_SUMMARY_PREFIX and _SUFFIX): the element's envelope, since in context a summary costs these too
COMPACTION_SUMMARY_WRAPPER = ("The conversation history before this point was compacted into the following summary:"
                              "\n\n<summary>\n", "\n</summary>")
BRANCH_SUMMARY_WRAPPER = ("The following is a summary of a branch that this conversation came back from:"
                          "\n\n<summary>\n", "</summary>")


# ---------------------------------------------------------------------------------------------
# Rules (data/transcript_openclaw.toml): envelopes and heartbeats
# ---------------------------------------------------------------------------------------------
#: compiled (and kept by re) when first used: a heartbeat's appended message rarely needs them
_FENCE_CLOSE = r"(?m)^[ \t]*```[ \t]*$"
_BLANK_LINE = r"(?m)^[ \t]*$"
_MARKUP = r"<[^>]*>|&nbsp;"


def _opens_stamped_line(pattern: LazyPattern, text: str, position: int) -> bool:
    """``pattern`` matches what follows the gateway's stamp at ``position``, to the end of that line."""
    if position == 0:
        return False
    line_end = text.find("\n", position)
    return pattern.match(text[position:line_end if line_end >= 0 else len(text)]) is not None


@slotted(frozen=True)
class EnvelopeRules:
    prefixes: tuple[LazyPattern, ...]
    block_headers: tuple[LazyPattern, ...]
    poll_patterns: tuple[LazyPattern, ...]
    ack_tokens: tuple[str, ...]
    ack_max_chars: int
    silent_tokens: tuple[str, ...]
    notice_lines: tuple[LazyPattern, ...] = ()
    suffixes: tuple[LazyPattern, ...] = ()
    injected: tuple[LazyPattern, ...] = ()
    injected_custom_types: frozenset[str] = frozenset()
    routed_provenance: frozenset[str] = frozenset()
    failed_stop_reasons: frozenset[str] = frozenset()
    failed_max_chars: int = 0
    failed_placeholders: frozenset[str] = frozenset()
    failed_texts: tuple[LazyPattern, ...] = ()
    mirror_models: frozenset[str] = frozenset()
    scheduled: tuple[LazyPattern, ...] = ()
    scheduled_suffixes: tuple[LazyPattern, ...] = ()
    unstamped_runs: tuple[LazyPattern, ...] = ()
    queued_items: tuple[LazyPattern, ...] = ()
    media_descriptions: tuple[LazyPattern, ...] = ()
    media_description_ends: tuple[LazyPattern, ...] = ()
    stamp_ids: tuple[LazyPattern, ...] = ()
    stamp_lines: tuple[LazyPattern, ...] = ()
    per_turn: tuple[LazyPattern, ...] = ()
    queued_batch: LazyPattern | None = None
    trailing_headers: tuple[LazyPattern, ...] = ()
    reply_directives: tuple[LazyPattern, ...] = ()
    answer_tags: tuple[LazyPattern, ...] = ()
    reasoning_blocks: tuple[LazyPattern, ...] = ()
    lean_keys: tuple[str, ...] = ()
    lean_time_keys: tuple[str, ...] = ()
    stamp_time: LazyPattern | None = None

    def split_envelope(self, text: str) -> tuple[str, str]:
        """(envelope, content): what the gateway wrapped around the user's words (leading stamps,
        notices and metadata blocks, trailing message ids) is the envelope."""
        prefix, content, suffix = self.split(text)
        return prefix + suffix, content

    def split(self, text: str) -> tuple[str, str, str]:
        """(prefix, content, suffix), which put together give ``text`` back: a writer that replaces
        the content puts the same wrappers around the new one."""
        prefix, content, suffix, _ = self.unwrap(text)
        return prefix, content, suffix

    def unwrap(self, text: str) -> tuple[str, str, str, bool]:
        """:meth:`split`, and whether the prefix ends with a scheduled job's stamp (the content is
        then the job's prompt)."""
        prefix, content, suffix, scheduled = self._unwrap(text)
        tail = self._trailing_blocks(content)
        if tail is not None:
            content, suffix = content[:tail], content[tail:] + suffix
        return prefix, content, suffix, scheduled

    def _trailing_blocks(self, content: str) -> int | None:
        """Where the metadata blocks that end the words start (with the blank run before them): newer
        releases put what the message replies to after it (``trailing_headers``: "Reply target of current
        user message (untrusted, for context):" and the quoted message as fenced JSON), the runtime's, not
        the user's words. Only those headers, each block's JSON parsing, to the end: a header the user
        typed, or a block with words after it, stays theirs. Read from the end, each block once."""
        if not self.trailing_headers or "(untrusted" not in content:
            return None
        end, found = len(content.rstrip()), None
        for header in reversed(_starts(self.trailing_headers, content)):
            if header >= end or header == 0:
                continue
            block = self._json_block_end(content[header:end])
            if block is None or content[header + block:end].strip():
                break
            found = end = len(content[:header].rstrip())
        return found

    def _unwrap(self, text: str) -> tuple[str, str, str, bool]:
        position = self._prefix_end(text)
        if any(self._injected_at(pattern, text, position) for pattern in self.injected) \
                and not any(item.search(text, position) for item in self.queued_items):
            return text, "", "", False
        run = self.scheduled_run(text[position:])
        if run is not None:
            position += len(run[0])
        content = text[position:]
        runtime_item = self._runtime_item_start(content)
        if runtime_item is not None:
            return text[:position], content[:runtime_item], content[runtime_item:], run is not None
        if run is None and position == 0:  # a job's prompt the runtime's time line ends, with no stamp nor sender (a
            # heartbeat's is a poll; a person's message, stamped or in a batch, keeps a time line they pasted)
            for pattern in self.unstamped_runs:
                match = pattern.search(content)
                if match is not None and match.start() > 0 and self.poll_start(content[:match.start()]) is None:
                    return text[:position], content[:match.start()], content[match.start():], True
        for pattern in (*self.suffixes, *(self.scheduled_suffixes if run is not None else ())):
            match = pattern.search(content)
            if match is None:
                continue
            start = match.start("at") if "at" in match.re.groupindex else match.start()
            if start > 0:
                return text[:position], content[:start], content[start:], run is not None
        return text[:position], content, "", run is not None

    def _runtime_item_start(self, content: str) -> int | None:
        """Where the last item of a batch of queued messages starts when that item is the runtime's own
        message (a /new prompt queued after the user's "did this run?"): it goes with the envelope, as a
        suffix, and its instructions are not read as the user's."""
        last: tuple[int, int] | None = None
        for pattern in self.queued_items:
            match = pattern.search(content)
            while match is not None:
                if last is None or match.start() > last[0]:
                    last = match.span()
                match = pattern.search(content, match.end())
        if not last or not last[0]:
            return None
        header_end = content.find("\n", last[1])  # the rest of the item's header line: "(from bob)"
        if header_end < 0:
            return None
        item = content[header_end + 1:]
        position = self._prefix_end(item)
        if not any(self._injected_at(pattern, item, position) for pattern in self.injected):
            return None
        return len(content[:last[0]].rstrip("\n"))  # the blank line before the item goes with it

    @staticmethod
    def _injected_at(pattern: LazyPattern, text: str, prefix_end: int) -> bool:
        """The runtime's own message, alone or after its stamp and queue header (not one quoted
        further down in the user's words). Its first line tells it, also on the stamp's line
        ("[Tue …] [System Message] [sessionId: …] A cron job …")."""
        match = pattern.search(text)
        return match is not None and match.start() <= prefix_end or _opens_stamped_line(pattern, text, prefix_end)

    def _prefix_end(self, text: str) -> int:
        return self._prefix_parts(text)[-1][1] if text else 0

    def _prefix_parts(self, text: str) -> list[tuple[int, int, bool]]:
        """The wrappers that open ``text``, one (start, end, per_turn) a wrapper (the blank lines before
        it with it), in order: (0, 0, False) alone when there is none."""
        parts = [(0, 0, False)]
        position = 0
        while True:
            rest = text[position:]
            stripped = len(rest) - len(rest.lstrip("\n"))
            rest = rest[stripped:]
            for prefix in self.prefixes:
                match = prefix.match(rest)
                if match and match.end():
                    parts.append((position, position + stripped + match.end(), prefix in self.per_turn))
                    position += stripped + match.end()
                    break
            else:
                # a notice is a line of its own: "System: […]" right after the stamp, on its line,
                # is what the user pasted (the gateway writes its notices before the stamp)
                at_line_start = position + stripped == 0 or text[position + stripped - 1] == "\n"
                end = self._notice_end(rest) if at_line_start else None
                if end is None:
                    end = self._metadata_block_end(rest)
                if end is None:
                    label = _sender_label(text[:position], rest)
                    if label:
                        parts.append((position, position + stripped + label, False))
                    return parts
                parts.append((position, position + stripped + end, False))
                position += stripped + end

    def without_metadata(self, text: str, keep: tuple[str, ...] = (), shown: str = "") -> str:
        """``text`` less the metadata blocks the gateway injects: a header line and a fenced block of
        JSON that parses (they repeat, for tools, the ids and the time the stamp gives). Anything else
        that looks like one (a header with plain lines, a fence never closed, JSON cut short) may be
        someone's words, and stays. ``keep``: the block's fields of these names stay, on one line, but
        a value ``shown`` already holds (a stamp that names the sender)."""
        kept: list[str] = []
        position = 0
        while position < len(text):
            line_end = text.find("\n", position)
            line_end = len(text) if line_end < 0 else line_end + 1
            if any(header.match(text[position:line_end].rstrip("\n")) for header in self.block_headers):
                end = self._json_block_end(text[position:])
                if end:
                    kept.append(_fields_of(text[position:position + end], keep, shown))
                    position += end
                    continue
            kept.append(text[position:line_end])
            position = line_end
        return "".join(kept)

    def lean(self, envelope: str) -> str:
        """A user message's ``envelope`` as a message kept before a compaction's tail shows it: its
        metadata blocks cut to who and where (``lean_keys``: the sender's name, the channel; not when
        its stamp already says them), and when
        (``lean_time_keys``) if no stamp outside them gives the time (newer Discord envelopes have none:
        in a group chat the name says who said it); without the channel's opaque ids in its stamp lines
        (``stamp_ids`` in the lines ``stamp_lines`` match: a sender's open id, a message id; the time,
        the channel and the name stay), never in a notice's body (a command's output may name an id the
        agent needs); without what the runtime or a plugin puts before every message (``per_turn``: recalled
        memories, instructions), which the newest message carries anew. Only an envelope: in a summary's
        text such an id may be one the agent needs."""
        if self.per_turn:
            parts = self._prefix_parts(envelope)
            envelope = "".join(envelope[start:end] for start, end, again in parts if not again) + envelope[parts[-1][1]:]
        shown = self.without_metadata(envelope)
        stamped = self.stamp_time is not None and self.stamp_time.search(shown)
        keep = self.lean_keys if stamped else (*self.lean_keys, *self.lean_time_keys)
        lines = self.without_metadata(envelope, keep, shown).splitlines(keepends=True)
        for index, line in enumerate(lines):
            if any(stamp.match(line) for stamp in self.stamp_lines):  # a notice's body keeps its ids
                for pattern in self.stamp_ids:
                    line = pattern.sub("", line)
                lines[index] = line
        return "".join(lines)

    def _json_block_end(self, text: str) -> int | None:
        """Where the metadata block that opens ``text`` (its header line) ends, when the header is
        followed by fenced JSON that parses."""
        first, _, after = text.partition("\n")
        if not after.lstrip(" \t").startswith("```"):
            return None
        end = self._metadata_block_end(text)
        if end is None:
            return None
        fenced = text[len(first) + 1:end].strip().splitlines()  # the opening fence, the JSON, the closing fence
        try:
            json.loads("\n".join(fenced[1:-1]))
        except ValueError:
            return None
        return end

    def scheduled_run(self, text: str) -> tuple[str, str] | None:
        """(stamp, prompt) when ``text`` is a scheduled job's prompt, else None."""
        for pattern in self.scheduled:
            match = pattern.match(text)
            if match:
                return text[:match.end()], text[match.end():]
        return None

    def media_description(self, text: str) -> tuple[int, int] | None:
        """(where the user's caption starts, where the description starts) of an image or a video in
        a user's ``text``: the description is a vision model's words that OpenClaw's media
        understanding put there, not the user's; the caption is the pattern's ``caption`` group
        (absent: the description's start), else None."""
        match = self._description_at(text, 0)
        if match is None:
            return None
        caption = match.groupdict().get("caption")
        return (match.start("caption") if caption is not None else match.end()), match.end()

    def _description_at(self, text: str, position: int) -> re.Match[str] | None:
        """The first description's opening (``media_descriptions``) in ``text`` from ``position``."""
        return next((m for p in self.media_descriptions if (m := p.search(text, position))), None)

    def described_spans(self, text: str) -> list[tuple[int, int]]:
        """(start, end) of each description of an image or a video that media understanding wrote into a
        user's ``text`` (from its "Description:" line to the next section, the next queued item, ``queued_items``,
        or the end): a vision model's words, not the user's; what lies between them (a caption, an audio's
        transcript, another queued message) is."""
        spans: list[tuple[int, int]] = []
        position = 0
        while position < len(text):
            match = self._description_at(text, position)
            if match is None:
                break
            end = min((m.start() for p in (*self.media_description_ends, *self.queued_items)
                       if (m := p.search(text, match.end()))), default=len(text))
            spans.append((match.end(), end))
            position = max(end, match.end() + 1)
        return spans

    def opens_batch(self, prefix: str) -> bool:
        """Whether the message opened with the header of a batch of queued messages (``queued_batch``)."""
        return self.queued_batch is not None and self.queued_batch.search(prefix) is not None

    def queued_furniture(self, text: str) -> list[tuple[int, int]]:
        """(start, end) of what the runtime wrapped around the later items of a batch of queued messages
        (``queued_items``: the "---" and "Queued #2" lines, each item's stamps, notices, metadata blocks and
        trailing ids) and of an item that is the runtime's whole (a channel plugin's "[System: …]" notice,
        the first item too): the message's own envelope is only the first item's prefix, and the rest would
        be read as the user's words."""
        starts = _starts(self.queued_items, text)
        if not starts:
            return []
        bounds = [0, *starts, len(text)]
        spans: list[tuple[int, int]] = []
        for index, (start, end) in enumerate(zip(bounds, bounds[1:], strict=False)):
            body = start
            if index:  # the item's marker, to the end of its "Queued #2 (from …)" line
                line_end = text.find("\n", text.index("Queued #", start))
                body = end if line_end < 0 or line_end >= end else line_end + 1
            prefix, _, suffix, _ = self.unwrap(text[body:end])
            if index or prefix:
                spans.append((start, body + len(prefix)))
            if suffix:
                spans.append((end - len(suffix), end))
        merged: list[tuple[int, int]] = []
        for start, end in spans:
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
            elif end > start:
                merged.append((start, end))
        return merged

    def without_stamp_at(self, text: str, start: int) -> str:
        """``text`` less the gateway's stamps (``prefixes``) that open the line at ``start``: the
        channel's envelope that media understanding copies in front of a caption. Only there: a
        later line that opens with a bracketed date ("[Standup 2026-04-10 09:30] room B") is the
        user's words."""
        head, rest = text[:start], text[start:]
        stripped = True
        while stripped:
            stripped = False
            for prefix in self.prefixes:
                match = prefix.match(rest)
                if match and match.end():
                    rest, stripped = rest[match.end():], True
        return head + rest

    def notice_in(self, envelope: str) -> bool:
        """The envelope holds a gateway notice (a job's or a command's report), on a line of its own
        or where the stamp's line goes on (the runtime's announcement of a finished run)."""
        if any(notice.search(envelope) for notice in self.notice_lines):
            return True
        stamped = self._prefix_end(envelope)
        return any(_opens_stamped_line(notice, envelope, stamped) for notice in self.notice_lines)

    def _notice_end(self, text: str) -> int | None:
        """A gateway notice runs from its first line to the next blank line (or the end)."""
        if not any(notice.match(text) for notice in self.notice_lines):
            return None
        blank = re.search(_BLANK_LINE, text)
        if blank is None:
            return len(text)
        tail = text[blank.start():]
        return blank.start() + len(tail) - len(tail.lstrip(" \t\n"))

    def _metadata_block_end(self, text: str) -> int | None:
        first, _, after = text.partition("\n")
        if not any(header.match(first) for header in self.block_headers):
            return None
        offset = len(first) + 1
        if after.lstrip(" \t").startswith("```"):
            fence_line, _, body = after.partition("\n")
            close = re.search(_FENCE_CLOSE, body)
            if close is None:
                return None
            offset += len(fence_line) + 1 + close.end()
        else:
            blank = re.search(_BLANK_LINE, after)
            offset += blank.start() if blank else len(after)
        tail = text[offset:]
        return offset + len(tail) - len(tail.lstrip(" \t\n"))

    def poll_start(self, text: str) -> int | None:
        """Where a heartbeat poll's own words start in ``text`` (leading blanks aside), or None when it
        holds none: after 0, they come after others (the rest of a gateway notice that ran over
        paragraphs, as a hook's assessment of an e-mail or a cron job's message does)."""
        stripped = text.lstrip()
        return min((found.start() for pattern in self.poll_patterns if (found := pattern.search(stripped))),
                   default=None)

    def no_words(self, text: str) -> bool:
        """The whole text is no words of the model's: a tool call it printed instead of making it, or the
        runtime's notice that the turn failed (``failed_texts``)."""
        return any(pattern.fullmatch(text) for pattern in self.failed_texts)

    def is_ack(self, text: str) -> bool:
        """OpenClaw's stripHeartbeatToken in heartbeat mode: token at an edge, little else."""
        if not any(token in text or " " in token for token in self.ack_tokens):
            return False  # no token in the text, none in the body: taking tags out only adds spaces
        body = re.sub(_MARKUP, " ", text).strip().strip("*`~_").strip()
        for token in self.ack_tokens:
            if body.startswith(token):
                rest = body[len(token):]
            elif re.search(re.escape(token) + r"[^\w]{0,4}$", body):
                rest = body[: body.rindex(token)]
            else:
                continue
            return len(rest.strip()) <= self.ack_max_chars
        return False

    def without_directives(self, text: str) -> str:
        """The agent's text as the gateway sends it: its reply directives (``[[reply_to_current]]``) removed."""
        if "[[" not in text:
            return text
        for pattern in self.reply_directives:  # as the gateway does: a tag between two words leaves a space
            text = pattern.sub(" ", text)
        return text

    def unsent_spans(self, text: str) -> tuple[list[tuple[int, int]], bool]:
        """(start, end) of the answer tags, reply directives and reasoning blocks in the agent's ``text`` that OpenClaw
        strips before the reply is read (``answer_tags``, ``reply_directives``, ``reasoning_blocks``), outside code; and
        whether a reasoning block is among them: the model's markup, no words of the reply."""
        if "<" not in text and "[[" not in text:
            return [], False
        found = sorted((m.start(), m.end(), reasoning) for reasoning, patterns in (
            (False, (*self.answer_tags, *self.reply_directives)), (True, self.reasoning_blocks))
            for pattern in patterns for m in pattern.finditer(text))
        if not found:
            return [], False
        code = fences.code_lines(lines := text.splitlines(keepends=True))
        starts = list(itertools.accumulate((len(line) for line in lines), initial=0))
        inline = [m.span() for m in re.finditer(r"`[^`\n]*`", text)] if "`" in text else []
        spans: list[tuple[int, int]] = []
        reasoned = False
        for start, end, reasoning in found:
            if spans and start < spans[-1][1]:
                continue  # a marker inside a reasoning block already taken out
            if code[min(bisect.bisect_right(starts, start) - 1, len(code) - 1)] or any(
                    a <= start < b for a, b in inline):
                continue
            spans.append((start, end))
            reasoned = reasoned or reasoning
        return spans, reasoned

    def is_silent(self, text: str) -> bool:
        body = text.strip().strip(".!*`_ ")
        return any(body == token for token in self.silent_tokens)


def _fields_of(block: str, keep: tuple[str, ...], shown: str) -> str:
    """A metadata block (its header, then fenced JSON that parses) cut to its fields named in
    ``keep``, each value once (a sender's label, name and username are often one name) and none that
    ``shown`` already says, on one line; nothing when it has none of them."""
    header, _, body = block.partition("\n")
    data = json.loads("\n".join(body.strip().splitlines()[1:-1])) if keep else {}
    fields: dict[str, str] = {}
    for key in keep if isinstance(data, dict) else ():
        value = data.get(key)
        if isinstance(value, str) and value and value not in fields.values() and not re.search(
                rf"(?<!\w){re.escape(value)}(?!\w)", shown):
            fields[key] = value
    if not fields:
        return ""
    return f"{header}\n```json\n{json.dumps(fields, ensure_ascii=False)}\n```\n\n"


#: a sender's label as a channel writes it after its stamp: a name and, in brackets, the sender's id: five digits or
#: more, an open id, or a handle of small letters with dots or underscores or digits after them (not "Note
#: (important)", "Python (3.12)", "Deadline (2026-04-10)", "Plan (v2)")
_ID_LABEL = re.compile(r"[^\n:()\[\]]{1,60} \((?:\d{5,}|ou_[0-9a-f]{8,}|[a-z][a-z0-9]*(?:[._][a-z0-9]+)+|[a-z]+\d{3,})\)")


def _sender_label(envelope: str, rest: str) -> int:
    """How long the sender's label that opens ``rest`` is ("陈元鹏: ", "LY (7304053733): "), when the metadata blocks of
    ``envelope`` name that sender ("name", "label" or "sender" of the JSON, as the gateway writes it) or the label
    carries the sender's id: a group chat's channel writes who spoke before the words, which the envelope keeps;
    0 when there is none."""
    colon = rest.find(": ", 0, 120)
    if colon <= 0 or "\n" in rest[:colon] or not envelope.strip() or not rest[colon + 2:].partition("\n")[0].strip():
        return 0  # (a label with no words after it on its line is left as it was: nothing of the sender's follows)
    if _ID_LABEL.fullmatch(rest[:colon]):
        return colon + 2  # the channel wrote the sender with their id ("LY (7304053733)", "Ali (ali.haider.bt02)")
    names = {json.dumps(rest[:colon], ensure_ascii=False), json.dumps(rest[:colon])}
    return colon + 2 if any(f'"{key}": {name}' in envelope for key in ("name", "label", "sender") for name in names) else 0


def _starts(patterns: tuple[LazyPattern, ...], text: str) -> list[int]:
    """Where each match of any of ``patterns`` starts in ``text``, in order, each place once."""
    starts: set[int] = set()
    for pattern in patterns:
        match = pattern.search(text)
        while match is not None:
            starts.add(match.start())
            match = pattern.search(text, max(match.end(), match.start() + 1))
    return sorted(starts)


@functools.cache
def rules() -> EnvelopeRules:
    data = toml_loads((Path(__file__).parents[1] / "data" / "transcript_openclaw.toml").read_text("utf-8"))
    envelope, heartbeat, assistant = data["envelope"], data["heartbeat"], data["assistant"]
    announcements = envelope["announcements"]  # the runtime's own messages, each a notice too

    def compile_all(patterns: list[str], flags: int = re.M) -> tuple[LazyPattern, ...]:
        # each compiled when a text could match it: most messages carry none of these envelopes
        return tuple(LazyPattern(p, flags) for p in patterns)

    per_turn = compile_all(envelope["per_turn"])  # envelope, tried first; left out of a kept message's envelope
    return EnvelopeRules((*per_turn, *compile_all(envelope["prefixes"])), compile_all(envelope["block_headers"]),
                 compile_all(heartbeat["poll_patterns"]), tuple(heartbeat["ack_tokens"]),
                 int(heartbeat["ack_max_chars"]), tuple(heartbeat["silent_tokens"]),
                 notice_lines=compile_all([*envelope["notice_lines"], *announcements]),
                 suffixes=compile_all(envelope["suffixes"], 0), injected=compile_all([*envelope["injected"], *announcements]),
                 injected_custom_types=frozenset(envelope.get("injected_custom_types", [])),
                 routed_provenance=frozenset(envelope.get("routed_provenance", [])),
                 failed_stop_reasons=frozenset(assistant["failed_stop_reasons"]),
                 failed_max_chars=int(assistant["failed_max_chars"]),
                 failed_placeholders=frozenset(assistant.get("failed_placeholders", [])),
                 failed_texts=compile_all(assistant.get("failed_texts", []), 0),
                 mirror_models=frozenset(assistant["mirror_models"]), scheduled=compile_all(envelope["scheduled"]),
                 scheduled_suffixes=compile_all(envelope.get("scheduled_suffixes", []), 0),
                 unstamped_runs=compile_all(envelope.get("unstamped_runs", []), 0),
                 queued_items=compile_all(envelope["queued_items"]),
                 media_descriptions=compile_all(envelope.get("media_descriptions", [])),
                 media_description_ends=compile_all(envelope.get("media_description_ends", []), 0),
                 stamp_ids=compile_all(envelope.get("stamp_ids", [])),
                 stamp_lines=compile_all(envelope.get("stamp_lines", [])), per_turn=per_turn,
                 queued_batch=LazyPattern(envelope["queued_batch"]) if "queued_batch" in envelope else None,
                 trailing_headers=compile_all(envelope.get("trailing_headers", [])),
                 reply_directives=compile_all(assistant.get("reply_directives", []), re.IGNORECASE),
                 answer_tags=compile_all(assistant.get("answer_tags", []), re.IGNORECASE),
                 reasoning_blocks=compile_all(assistant.get("reasoning_blocks", []), re.IGNORECASE),
                 lean_keys=tuple(envelope.get("lean_keys", [])), lean_time_keys=tuple(envelope.get("lean_time_keys", [])),
                 stamp_time=LazyPattern(envelope["stamp_time"]) if "stamp_time" in envelope else None)
