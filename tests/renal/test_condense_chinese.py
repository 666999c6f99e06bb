"""Chinese has no spaces: a one-character interjection ("成", "行": OK) or a hedge ("那个") at the
start of a sentence may be the start of a word ("成熟稳定", "行业", "那个方案"). Found on a real
MEMORY.md at --keep-ratio: "- 成熟稳定 — 优先选择…" became "- 熟稳定 — …". Only a separator or the end
of the sentence says where such a phrase stops."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from apollo.renal.condense import Condenser

CONDENSER = Condenser()


def test_a_word_that_starts_like_an_interjection_keeps_its_first_character() -> None:
    for text, word in (("成熟稳定，优先选择经过验证的技术", "成熟稳定"), ("行业分析报告已经完成", "行业"),
                       ("那个方案不行，换一个", "那个方案")):
        assert all(word in form for _, form in CONDENSER.ladder(text)), text


def test_a_term_after_a_comma_is_not_a_name_in_address_when_the_sentence_goes_on() -> None:
    """A real MEMORY.md: "…（明显改善），LDL-C 3.44（略高）" lost "，LDL-C" as if it were "…, Maria", and
    3.44 then read as the total's. A name in address is the sentence's last word."""
    for text, term in (("- **血脂改善**：总胆固醇6.18→5.14（明显改善），LDL-C 3.44（略高）", "LDL-C"),
                       ("Total is 6.18, LDL 3.44 (high)", "LDL")):
        assert all(term in form for _, form in CONDENSER.ladder(text)), text


def test_an_interjection_set_off_by_a_separator_still_goes() -> None:
    forms = [form for _, form in CONDENSER.ladder("嗯哼，我们明天见面讨论方案")]
    assert forms and forms[0] == "我们明天见面讨论方案"


def test_a_particle_that_is_part_of_a_word_stays() -> None:
    """A real MEMORY.md: "了解用户具体的消费习惯" became "解用户具体消费习惯" ("了" of "了解")."""
    for text, word in (("我们需要了解用户具体的消费习惯，再定方案", "了解"), ("目的是建立可维护的方案", "目的"),
                       ("用哈希表存储的数据", "哈希"), ("走吧我们明天见面讨论的方案", "走吧")):
        assert all(word in form for _, form in CONDENSER.ladder(text)), text


def _is_subsequence(short: str, long: str) -> bool:
    rest = iter(long)
    return all(char in rest for char in short)


_WORDS = st.sampled_from(["成熟", "行业", "那个", "好的", "其实", "嗯", "报告", "完成", "方案", "稳定", "的", "了",
                          "数据库", "迁移", "不", "要", "成本", "行动", "了解", "目的", "哈希", "吧", "吗", "着急"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORDS, min_size=1, max_size=10).map("".join))
def test_a_run_without_separators_loses_only_particles(text: str) -> None:
    """Property: in a sentence of Chinese with no separator, no phrase can be known to stop before
    the next character, so every form is the text with only particles taken out, never one inside a
    word of ``particle_words``, nor a clause-final one before another word."""
    particles = set(CONDENSER.rules.particles)
    for _, form in CONDENSER.ladder(text):
        removed = Counter(text) - Counter(form)
        assert _is_subsequence(form, text) and set(removed) <= particles, (text, form)
        for word in CONDENSER.rules.particle_words:
            assert form.count(word) >= text.count(word) or word not in text, (text, form, word)
        for particle in CONDENSER.rules.final_particles:  # only the one that ends the sentence may go
            assert form.count(particle) >= text.count(particle) - text.endswith(particle), (text, form)
