"""How much information each message carries, relative to the conversation it is in.

A word that appears in few messages of the conversation is specific (a name, a place, a
dish, a project); a word said everywhere (great, really, thanks) is chatter. A message's
value is the specificity (inverse document frequency within the transcript) of its content
words, each counted in full at its first mention and less every time it is said again; what
sits in a question counts half, since a question asks where its answer tells. Chinese text is
measured in character pairs. Nothing here is tuned to any data set: it is the textbook
information measure (tf-idf with novelty), computed on the transcript alone, with one reading of
what a later turn can ask about: a word inside a date, a time, a quantity or a name (the
``specific`` patterns of ``rules/filter.toml`` and the reabsorption patterns, which say what a
fact looks like) counts ``specific_weight`` times.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence

from apollo.renal.concentrate import FilterRules
from apollo.renal.condense import Condenser

_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{2,}")
_SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？]*")
_QUESTION_END = ("?", "？")
QUESTION_WEIGHT = 0.5


def units(text: str, condenser: Condenser) -> set[str]:
    """Content words, plus CJK character pairs (Chinese has no spaces to find words by)."""
    found = {u for u in condenser.content_units(text) if not _is_cjk(u)}
    for run in _CJK_RUN.findall(text):
        found.update(run[i:i + 2] for i in range(len(run) - 1)
                     if not (run[i] in condenser.rules.function_words and run[i + 1] in condenser.rules.function_words))
    return found


def _is_cjk(unit: str) -> bool:
    return len(unit) == 1 and "\u3400" <= unit <= "\ufaff"


def specifics(text: str, rules: FilterRules, condenser: Condenser, names: frozenset[str] = frozenset()) -> set[str]:
    """The content words of ``text`` that name something specific (inside a date, a time, a
    quantity, a name), a participant's name (lowercase in ``names``) excepted: it is everywhere."""
    found: set[str] = set()
    for pattern in (*(p.compiled() for p in rules.reabsorb), *_compiled(tuple(rules["specific"]))):
        for match in pattern.finditer(text):
            found |= units(match.group(), condenser)
    return found - names


@functools.lru_cache(maxsize=8)
def _compiled(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p) for p in patterns)


def information(texts: Sequence[str], condenser: Condenser | None = None, rules: FilterRules | None = None,
                names: frozenset[str] = frozenset()) -> list[float]:
    """One value per text, in order: specific, new, stated content scores high (with ``rules``,
    words inside dates, quantities and names count ``specific_weight`` times)."""
    condenser = condenser or Condenser()
    per_text: list[dict[str, float]] = []
    frequency: dict[str, int] = {}
    boost = float(rules["specific_weight"]) if rules is not None else 1.0
    for text in texts:
        weights: dict[str, float] = {}
        for sentence in _SENTENCE.findall(text) or [text]:
            weight = QUESTION_WEIGHT if sentence.rstrip().endswith(_QUESTION_END) else 1.0
            specific = specifics(sentence, rules, condenser, names) if rules is not None else set()
            for unit in units(sentence, condenser):
                unit_weight = weight * boost if unit in specific else weight
                weights[unit] = max(weights.get(unit, 0.0), unit_weight)
        per_text.append(weights)
        for unit in weights:
            frequency[unit] = frequency.get(unit, 0) + 1
    total = max(len(texts), 1)
    said: dict[str, int] = {}
    values: list[float] = []
    for weights in per_text:
        value = 0.0
        for unit, weight in weights.items():
            value += weight * math.log(total / frequency[unit]) / (1 + said.get(unit, 0))
        for unit in weights:
            said[unit] = said.get(unit, 0) + 1
        values.append(value)
    return values
