"""Forms met in OpenClaw sessions of owners the rules were never tuned on (sentences invented here,
none quoted)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from support_classify import verdicts

MUST_KEEP = {"decision", "preference", "task", "question"}

#: words the intent rules read as a standing rule, a decision or a request, when the speaker writes them
RULE_WORDS = ("always", "never", "prefer", "use", "dont", "remember", "from-now-on", "please", "fix", "stop", "must")


def test_the_words_of_a_links_path_are_no_standing_rule_of_the_speaker() -> None:
    """'…/i-always-prefer-x-over-y' names a page; the same words written by the user state a rule."""
    linked = verdicts(("user", "Here: https://example.com/posts/i-always-prefer-vim-over-emacs/"))
    said = verdicts(("user", "I always prefer vim over emacs"))
    assert linked["m1"].category != "preference", linked["m1"]
    assert said["m1"].category == "preference", said["m1"]


@given(st.lists(st.sampled_from(RULE_WORDS), min_size=1, max_size=6), st.sampled_from(["/", "?q=", "#"]))
def test_a_links_path_query_or_fragment_changes_no_verdict(words: list[str], joint: str) -> None:
    """Whatever words a link carries after its host, the message is read as the one with the bare host."""
    opening = "Here: "
    with_path = verdicts(("user", f"{opening}https://example.com{joint}{'-'.join(words)}"))["m1"]
    host_only = verdicts(("user", f"{opening}https://example.com"))["m1"]
    assert (with_path.category, with_path.rule) == (host_only.category, host_only.rule)
