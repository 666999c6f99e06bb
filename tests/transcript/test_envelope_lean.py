"""EnvelopeRules.without_metadata: a kept message's envelope (or an earlier summary quoting one) less
the metadata blocks the gateway injects, every other line as it was; EnvelopeRules.lean: a kept message's
envelope also without the channel's opaque ids in its stamp."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from apollo.transcript.openclaw_rules import rules

#: a line a person or a stamp may write (not blank: the blank lines after a block go with it), no block header
_LINE = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=40).filter(
    lambda s: s[:1].strip() and not any(h.match(s) for h in rules().block_headers)).map(lambda s: s + "\n")
_BLOCK = st.dictionaries(st.sampled_from(["message_id", "sender_id", "name", "timestamp"]),
                         st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=12), min_size=1).map(
    lambda data: f"Conversation info (untrusted metadata):\n```json\n{json.dumps(data, indent=2)}\n```\n\n")


@given(st.lists(st.tuples(st.booleans(), _LINE, _BLOCK), max_size=8))
def test_the_metadata_blocks_go_and_every_other_line_stays(parts: list[tuple[bool, str, str]]) -> None:
    text = "".join(line + (block if with_block else "") for with_block, line, block in parts)
    assert rules().without_metadata(text) == "".join(line for _, line, _ in parts)


def test_a_header_phrase_inside_a_sentence_is_no_block() -> None:
    text = "I typed Sender (untrusted metadata): here\nand more\n"
    assert rules().without_metadata(text) == text


def test_a_stamp_keeps_the_time_the_channel_and_the_name_without_the_channels_opaque_ids() -> None:
    stamp = ("System: [2026-03-31 17:10:28 GMT+8] Feishu[anuo] DM | Lynch (ou_b83724522290b2449d9ecb7166431801)"
             " [msg:om_x100b538cb6f72898c4571d5a0e73ad0]\n\n")
    assert rules().lean(stamp) == "System: [2026-03-31 17:10:28 GMT+8] Feishu[anuo] DM | Lynch\n\n"


def test_a_short_word_in_brackets_is_no_channel_id() -> None:
    text = "System: [2026-03-31 17:10:28 GMT+8] Feishu[anuo] DM | Lynch (ou_42) [draft]\n"
    assert rules().lean(text) == text


def test_a_stamps_other_notes_stay_without_the_message_id() -> None:
    stamp = "System: [2026-04-06 11:05:39 GMT+8] Feishu[anuo] DM | Lynch [msg:om_x100b5206, image, 1 attachment(s)]\n"
    assert rules().lean(stamp) == "System: [2026-04-06 11:05:39 GMT+8] Feishu[anuo] DM | Lynch [image, 1 attachment(s)]\n"


def test_an_id_in_a_summarys_words_stays() -> None:
    text = "- Send the weekly report to the team chat (oc_5f0e9a0c2b7d4e1f8a9b) every Friday.\n"
    assert rules().without_metadata(text) == text  # an earlier summary is quoted less its metadata blocks only


def test_a_notices_body_keeps_the_ids_its_command_printed() -> None:
    notice = ("System: [2026-04-07 14:20:00 GMT+8] Exec completed (tidal-ri, code 0) :: created group chat Ops-oncall"
              " (oc_5f0e9a0c2b7d4e1f8a9b0c1d2e3f4a5b) [msg:om_x100b5206aa]\n\n")
    stamp = "System: [2026-03-31 17:10:28 GMT+8] Feishu[anuo] DM | Lynch (ou_b83724522290b2449d9ecb7166431801)\n"
    assert rules().lean(notice + stamp) == notice + "System: [2026-03-31 17:10:28 GMT+8] Feishu[anuo] DM | Lynch\n"


def _discord(sender: str, stamp: str, time: str) -> str:
    """A Discord envelope: the blocks, then a stamp (older releases) or none (newer: the blocks alone
    name the time and the sender)."""
    info = {"message_id": "1477913979107151944", "sender_id": "729703087031320577", "timestamp": time,
            "group_channel": "#projects", "is_group_chat": True}
    who = {"label": sender, "name": sender, "username": sender, "tag": sender}
    return (f"Conversation info (untrusted metadata):\n```json\n{json.dumps(info, indent=2)}\n```\n\n"
            f"Sender (untrusted metadata):\n```json\n{json.dumps(who, indent=2)}\n```\n\n{stamp}")


@given(sender=st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=20),
       words=st.from_regex(r"[A-Za-z][A-Za-z0-9 ,.!?']{0,60}", fullmatch=True),
       stamped=st.booleans())
def test_a_lean_envelope_keeps_the_users_words_and_who_sent_them(sender: str, words: str, stamped: bool) -> None:
    """The lean form drops the blocks' ids, never the words nor the sender's name (unless the stamp
    already says it); the time stays when no stamp outside the blocks gives it."""
    stamp = "[Mon 2026-03-02 06:22 UTC] " if stamped else ""
    lean = rules().lean(_discord(sender, stamp, "Mon 2026-03-02 06:22 UTC"))
    envelope, text = rules().split_envelope(lean + words)
    assert (envelope, text) == (lean, words)
    assert json.dumps({"name": sender}, ensure_ascii=False)[1:-1] in lean or sender in stamp
    assert "message_id" not in lean and "sender_id" not in lean
    assert ('"timestamp"' in lean) is not stamped


def test_a_block_with_nothing_worth_keeping_goes_whole() -> None:
    block = 'Conversation info (untrusted metadata):\n```json\n{"message_id": "42", "is_group_chat": true}\n```\n\n'
    assert rules().lean(block + "[Mon 2026-03-02 06:22 UTC] ") == "[Mon 2026-03-02 06:22 UTC] "


def test_what_is_put_before_every_message_goes_and_the_stamp_stays() -> None:
    stamp = "[Telegram Ana (@ana) id:42 +5m 2026-01-29 15:57 UTC] "
    recalled = "<relevant-memories>\n  1. [message:user] always answer in French\n</relevant-memories>\n\n"
    note = ("Note: Reference memory below. Build on past successes; avoid repeating failed approaches.\n- Time: "
            "2026-03-21 12:31\n\n```text\n<memory>\n  <trait>\n  - [Implicit] likes tables\n  </trait>\n</memory>\n"
            "```\n\nuser\u200boriginal\u200bquery\u200b:\u200b\n")
    image = "To send an image back, prefer the message tool (media/path/filePath). Keep caption in the text body.\n"
    for envelope in (recalled + stamp, note + stamp, "[media attached: /tmp/a.png (image/png)]\n" + image + stamp):
        prefix, words, _ = rules().split(envelope + "check the backup")
        assert words == "check the backup"
        assert rules().lean(prefix).endswith(stamp)
        assert "memor" not in rules().lean(prefix) and "send an image back" not in rules().lean(prefix)
