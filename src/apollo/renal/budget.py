"""Fit a transcript into a token budget, giving up the least valuable words first.

The order is the spec's (SPEC §1.5): noise and redundancy are gone before this runs; then the
process elements give way, shortened (see :mod:`apollo.renal.condense`) or dropped by how
little information they carry per token, the oldest first among equals. The must-keep elements
(decisions, preferences, tasks, open questions, the recent tail) lose only words that carry no
content (phatic sentences, fillers, articles, function words: every content word stays) while
anything else can give way, and get their readable form back first when room is left; only when
they alone exceed the budget are they shortened further and then dropped — the recent tail's
process first, then what tells the least per token (the oldest among equals) — and the result
says which and why. What is left goes to the dropped decisions and the like that fit whole again,
then to the readable forms, then to each dropped message whole or else its opening (cut, with a
marker: :func:`apollo.renal.concentrate.opening`; dropping it whole left the budget unspent and the
conversation without it), the recent tail's process last.

Within the process elements this is a multiple-choice knapsack solved greedily: every element
first gets its shortest form in order of value per token (so as many informative messages as
possible stay), then the leftover budget lengthens them again, best gain per token first (so a
generous budget gives back readable text).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

#: how much of its value a message keeps at each form (readability): full text is worth most
FORM_QUALITY = {"full": 1.0, "tidy": 0.98, "terse": 0.95, "compact": 0.9, "notes": 0.8, "opening": 0.5}
#: value per token^DENSITY_EXPONENT orders the first fill: 0 = value alone, 1 = value per token
DENSITY_EXPONENT = 0.5
#: the priority of the one element a budget never drops (the user's latest request)
NEVER_DROPPED = 2


@dataclass(slots=True)
class Form:
    name: str
    text: str
    tokens: int
    #: holds every content word of the element (only words that carry none went): a form a
    #: must-keep element may take before anything else is dropped
    keeps_content: bool = False


@dataclass(slots=True)
class Candidate:
    """One element the budget may shorten or drop; ``forms[0]`` is its full text."""

    id: str
    value: float
    position: int
    forms: list[Form]
    must_keep: bool = False
    #: which must-keep give way first when they alone exceed the budget: 0 the recent tail's process,
    #: 1 decisions, preferences, tasks and questions, 2 the user's latest request (never dropped)
    priority: int = 0
    #: its opening within so many tokens (a form that loses words, and says so), or None: what a
    #: must-keep message keeps instead of being dropped, when the room left holds it
    opening: Callable[[int], Form | None] | None = None
    #: the candidate it stands under in a document (its heading, or the list item it is nested in):
    #: it stays only with that one, since a list item without its heading tells a reader less
    under: str | None = None
    #: a document's heading: it stays only as what a chosen element stands under, never alone
    structure: bool = False


@dataclass(slots=True)
class Fit:
    """The form chosen for each candidate (index into ``forms``; absent = dropped)."""

    chosen: dict[str, int] = field(default_factory=dict)
    tokens: int = 0
    budget: int = 0
    must_keep_shortened: list[str] = field(default_factory=list)
    must_keep_dropped: list[str] = field(default_factory=list)
    #: must-keep elements cut to their opening instead of dropped (not in ``must_keep_shortened``,
    #: which lost only words that carry no content)
    must_keep_opened: list[str] = field(default_factory=list)
    #: why each dropped must-keep element went first: ``tail`` (the recent tail's process) or
    #: ``least_informative`` (it told the least per token of what was left)
    must_keep_why: dict[str, str] = field(default_factory=dict)

    @property
    def met(self) -> bool:
        return self.tokens <= self.budget


def fit(candidates: list[Candidate], budget: int) -> Fit:
    """Choose forms so the total stays within ``budget`` tokens (when at all possible)."""
    result = Fit(budget=budget)
    keep = [c for c in candidates if c.must_keep]
    process = [c for c in candidates if not c.must_keep]
    for c in keep:  # must-keep text starts at its shortest form that keeps every content word
        result.chosen[c.id] = _content_kept(c)
    keep_tokens = sum(c.forms[result.chosen[c.id]].tokens for c in keep)
    squeezed = keep_tokens > budget
    if squeezed:  # nothing else can stay: the must-keep alone do not fit
        keep_tokens = _squeeze_must_keep(keep, budget, result)
    used = keep_tokens + (0 if squeezed else _fill(process, budget - keep_tokens, result.chosen, keep))
    # what is left: the dropped decisions and the like whole (before any filler word comes back), the
    # readable forms, then each dropped message whole or its opening (the tail's process last)
    used += _give_back(keep, budget - used, result, least_priority=1)
    used += _lengthen(keep, process, budget - used, result.chosen)
    used += _give_back(keep, budget - used, result, least_priority=0, opened=True)
    # what stays brings the headings it stands under while room is left (must-keep elements that
    # alone filled the budget, or came back at the end, did not)
    result.tokens = used + _headings_back(keep, process, budget - used, result.chosen)
    result.must_keep_shortened = [c.id for c in keep if result.chosen.get(c.id, 0) > 0
                                  and c.id not in result.must_keep_opened]
    return result


def _content_kept(candidate: Candidate) -> int:
    """The shortest form that keeps every content word of a must-keep element (the full text at least)."""
    allowed = [i for i, form in enumerate(candidate.forms) if form.keeps_content]
    return allowed[-1] if allowed else 0


def _fill(process: list[Candidate], room: int, chosen: dict[str, int], keep: Sequence[Candidate] = ()) -> int:
    """Every process element at its shortest form, most informative per token first, each with the
    headings and items it stands under (a kept must-keep element's first); a heading never alone."""
    used = 0
    by_id = {c.id: c for c in process}
    for c in keep:
        if c.id in chosen:
            used += _outermost_that_fit(_unchosen_above(c, by_id, chosen), room - used, chosen)
    order = sorted(process, key=lambda c: (-c.value / max(1, c.forms[-1].tokens) ** DENSITY_EXPONENT, -c.position))
    for c in order:
        if c.id not in chosen and not c.structure:
            used += _choose([*_unchosen_above(c, by_id, chosen), c], room - used, chosen)
    return used


def _headings_back(keep: list[Candidate], process: list[Candidate], room: int, chosen: dict[str, int]) -> int:
    """With the room left: the headings above what stays (outermost first, as far as each fits), then the
    headings with nothing under them in the document (an empty "## TODO"), best value first."""
    by_id = {c.id: c for c in process}
    used = 0
    for c in [*keep, *process]:
        if c.id in chosen and c.under is not None:
            used += _outermost_that_fit(_unchosen_above(c, by_id, chosen), room - used, chosen)
    heads = {c.under for c in [*keep, *process]}
    leaves = [c for c in process if c.structure and c.id not in heads and c.id not in chosen]
    for c in sorted(leaves, key=lambda c: (-c.value / max(1, c.forms[-1].tokens), c.position)):
        used += _choose([*_unchosen_above(c, by_id, chosen), c], room - used, chosen)  # with the headings above it
    return used


def _outermost_that_fit(group: list[Candidate], room: int, chosen: dict[str, int]) -> int:
    """The headings of ``group`` (outermost first) as far as each fits: never one without those above
    it (a "### Database" kept without its "## Infrastructure" reads as part of the section before)."""
    used = 0
    for c in group:
        cost = _choose([c], room - used, chosen)
        if c.id not in chosen:
            break
        used += cost
    return used


def _unchosen_above(c: Candidate, by_id: dict[str, Candidate], chosen: dict[str, int]) -> list[Candidate]:
    """The process elements ``c`` stands under that are not chosen yet, outermost first."""
    above: list[Candidate] = []
    seen: set[str] = set()  # ids, not the candidates: comparing those field by field made deep nesting cubic
    parent = by_id.get(c.under) if c.under is not None else None
    while parent is not None and parent.id not in chosen and parent.id not in seen:
        seen.add(parent.id)
        above.append(parent)
        parent = by_id.get(parent.under) if parent.under is not None else None
    return above[::-1]


def _choose(group: list[Candidate], room: int, chosen: dict[str, int]) -> int:
    """All of ``group`` at their shortest forms if they fit in ``room`` together, else none."""
    cost = sum(c.forms[-1].tokens for c in group)
    if not group or cost > room:
        return 0
    for c in group:
        chosen[c.id] = len(c.forms) - 1
    return cost


def _lengthen(keep: list[Candidate], process: list[Candidate], room: int, chosen: dict[str, int]) -> int:
    """Spend what is left giving text back: must-keep first, then the best gain per token."""
    used = 0
    heap: list[tuple[int, float, int, str, int]] = []
    by_id = {c.id: c for c in (*keep, *process)}
    must = {c.id for c in keep}

    def offer(c: Candidate) -> None:
        current = chosen.get(c.id)
        if not current:
            return
        here, longer = c.forms[current], c.forms[current - 1]
        gain = c.value * (FORM_QUALITY.get(longer.name, 1.0) - FORM_QUALITY.get(here.name, 1.0))
        rank = -gain / max(1, longer.tokens - here.tokens)
        heapq.heappush(heap, (0 if c.id in must else 1, rank, -c.position, c.id, current))

    for c in by_id.values():
        offer(c)
    while heap:
        _, _, _, cid, current = heapq.heappop(heap)
        if chosen.get(cid) != current:
            continue
        c = by_id[cid]
        extra = c.forms[current - 1].tokens - c.forms[current].tokens
        if used + extra <= room:
            chosen[cid] = current - 1
            used += extra
            offer(c)
    return used


def _give_back(keep: list[Candidate], room: int, result: Fit, least_priority: int, *, opened: bool = False) -> int:
    """A dropped must-keep element (of at least ``least_priority``) that fits whole again (every
    content word) in what is left stays, the last dropped (it told the most) first: dropping in order
    can take a small one before the large one that was enough. ``opened``: one that does not fit
    whole keeps its opening when the room holds it (the form is appended to its ``forms``)."""
    used = 0
    by_id = {c.id: c for c in keep}
    for cid in reversed(result.must_keep_dropped[:]):
        c = by_id[cid]
        form = _content_kept(c)
        if c.priority < least_priority:
            continue
        if used + c.forms[form].tokens <= room:
            used += _back(c, form, result)
        elif opened and c.opening is not None and (opening := c.opening(room - used)) is not None:
            c.forms.append(opening)
            used += _back(c, len(c.forms) - 1, result)
            result.must_keep_opened.append(cid)
    return used


def _back(c: Candidate, form: int, result: Fit) -> int:
    """``c``, dropped, stays at ``forms[form]``; its tokens."""
    result.chosen[c.id] = form
    result.must_keep_dropped.remove(c.id)
    result.must_keep_why.pop(c.id, None)
    return c.forms[form].tokens


def _squeeze_must_keep(keep: list[Candidate], budget: int, result: Fit) -> int:
    """Shorten must-keep elements further (the recent tail's process before decisions and the
    like, then the least informative per token, the oldest among equals; one form at a time), then
    drop them in that order, a document's headings after what they carry — never the user's latest
    request."""
    total = sum(c.forms[result.chosen[c.id]].tokens for c in keep)
    order = sorted(keep, key=lambda c: (c.priority, c.structure, c.value / max(1, c.forms[0].tokens), c.position))
    depth = 1
    while total > budget and any(len(c.forms) > depth for c in keep):
        for c in order:
            if total <= budget:
                break
            if len(c.forms) > depth and result.chosen[c.id] < depth:
                total -= c.forms[result.chosen[c.id]].tokens - c.forms[depth].tokens
                result.chosen[c.id] = depth
        depth += 1
    for c in order:
        if total <= budget:
            break
        if c.priority >= NEVER_DROPPED:
            continue
        total -= c.forms[result.chosen.pop(c.id)].tokens
        result.must_keep_dropped.append(c.id)
        result.must_keep_why[c.id] = "tail" if c.priority == 0 else "least_informative"
    return total
