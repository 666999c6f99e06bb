"""What one message says, before its place in the conversation is considered.

A message is cut into clauses at punctuation (and at spaces between Chinese characters, as
people write "行行 我知道"). Each clause is looked up in the social lexicons (is it only
"好的", "uh-huh", "谢谢"?) and searched for intent markers (a preference, a decision, a task, a
question). The classifier then decides with context; this module knows no context.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterator, Sequence

from apollo.hanzi import simplified
from apollo.patterns import LazyPattern
from apollo.records import field, slotted
from apollo.renal.rules import RenalRules, Signal, normalize_phrase
from apollo.transcript import fences
from apollo.words import all_cjk, cjk_runs, held, stem

# Clause boundaries: Chinese and Latin punctuation, ellipses, a period that ends a sentence (not
# "main.py" or "4.5"), a question mark that is no URL's query ("wiki/abc?from=copy"), line breaks, and a
# space between two Chinese characters.
_LATIN_BOUNDARIES = r"\.{2,}|[,!;~]+|\?+(?![A-Za-z0-9_=&%/.-])|\.(?=\s|$|[\"')\]])"
_SPLIT_PATTERN = rf"([，。！？；、…～\n]+|{_LATIN_BOUNDARIES}|(?<=[\u3400-\u9fff])\s+(?=[\u3400-\u9fff]))"
# ... the same boundaries in a text of ASCII characters only (the Chinese ones cannot occur, and
# compiling their wide character ranges costs a heartbeat's English message 1.5 ms)
_SPLIT_ASCII = re.compile(rf"(\n+|{_LATIN_BOUNDARIES})")
# Everything that is not a word character, a space, an apostrophe, a hyphen or an emoji; in a text
# of ASCII characters only (no emoji can occur, and compiling the emoji ranges costs a heartbeat's
# English message 0.4 ms) the same without them. Emoji runs (none in such a text).
_PUNCT_PATTERN = r"[^\w\s'\-\U0001F000-\U0001FAFF\u2600-\u27BF]"
_PUNCT_ASCII = re.compile(r"[^\w\s'\-]")
_EMOJI_PATTERN = r"[\U0001F000-\U0001FAFF\u2600-\u27BF\uFE0F]+"
_QUESTION_MARKS = ("?", "？")
# Arabic-script punctuation (Arabic, Persian, Urdu) read as the marks the rules are written with: "؟" asks as "?"
# does, "،" and "؛" end a clause as "," and ";" do (one character for one)
_ARABIC_MARKS = str.maketrans("؟،؛", "?,;")
_INCOMPLETE_MARKS = (",", "，", "-", "—", "、", "…")
#: a link's path, query and fragment after its scheme and host ("https://example.com/why-we-prefer-tabs?x=1")
_LINK_PATH = LazyPattern(r"(https?://[A-Za-z0-9.:@%_~-]+)[/?#][A-Za-z0-9._~:/?#@!$&'*+,;=%-]*", re.IGNORECASE)
_LATIN_WORD = re.compile(r"[a-z][a-z0-9_+#-]*[a-z0-9+#]|[a-z]")
#: messages up to this long are cached (bounded: 4096 of them)
_CACHED_CHARS = 400
# Quotation marks that open and close: a question mark inside a quotation is not the speaker asking.
_QUOTE_OPEN = "「『“《"
_QUOTE_CLOSE = "」』”》"
# The straight double quote opens and closes alike: a pair of them on one line is a quotation (a report's
# 'Question sent: "Should I run the health check now?"' asks nobody here); a lone one is an inch mark
# ('The screen is 27" wide. Which one should I buy?' asks) and quotes nothing.
_STRAIGHT_QUOTE = '"'
# Where a sentence ends (outside quotations): Chinese and Latin end marks, a period before a space, a line break.
_SENTENCE_END = re.compile(r"[。！？!?\n]+|\.(?=\s|$)")
#: a line that ends a sentence (what a person writes, where a command's output line seldom does)
_SENTENCE_END_AT_END = LazyPattern(r"[。！？!?.…]\s*$")  # compiled for the first pasted block
#: how many sentences open a reply (within its first characters): where it says whether it knows the answer
_OPENING_SENTENCES = 2
_OPENING_CHARS = 600
#: a Markdown heading: in the agent's report, one that asks what, why or whether something is so, put to no one
#: (``signal.section_question``, not ``signal.addressee``: "## Why did it fail?"), with another heading after it, titles a
#: section, which answers it; the last one may be what the message asks ("## Start module 1?", then options)
_HEADING = re.compile(r"#{1,6}[ \t]")
#: a message of at most this many clauses, each a question without its mark, asks them all
_UNMARKED_CLAUSES = 3


@slotted()
class Clause:
    body: str
    end: str
    norm: str = ""
    social: Signal | None = None
    question: bool = False
    whole: str | None = None  # the whole-clause intent signal it is (rejection, agreement, fragment, tag)


@slotted()
class Reading:
    """The message's clauses and the signals found in them."""

    clauses: list[Clause]
    #: social signals of the social clauses, in order
    social: list[Signal] = field(default_factory=list)
    #: intent signal name -> the text that matched it (first occurrence)
    found: dict[str, str] = field(default_factory=dict)
    #: a real question (a tag such as "对吧" or "right?" is not)
    question: bool = False
    #: its first question takes a bare yes or no, or one of its questions is an offer that does ("Want
    #: me to switch now? … What's your budget?", "你的预算是多少？要我现在切换吗？": answered "yes please",
    #: "好的"); the other questions after a wh-question are its options ("What for? Chat? Vision?"),
    #: which a bare yes or no does not choose among, and a suggestion in a statement asks nothing
    yes_no: bool = False
    #: ends a statement with a tag ("…，对吧", "…, right?"): asks for confirmation, not information
    tag: bool = False
    #: the message stops mid-sentence ("I've, uh,")
    incomplete: bool = False
    #: its first sentences, lower-cased: a reply says there whether it knows the answer
    opening: str = ""

    @property
    def content(self) -> list[Clause]:
        return [c for c in self.clauses if c.social is None]

    @property
    def social_only(self) -> bool:
        """Only social clauses, and not only forms of address ("老王" alone is a summons); a form of
        address is social beside a spoken formula ("谢谢，苏总"), a summons beside a mere sound ("哎，妈")."""
        signals = [c.social for c in self.clauses]
        if not signals or None in signals:
            return False
        spoken = [s for s in signals if s is not None and not s.attached]
        return bool(spoken) and (all(s is not None and not s.attached for s in signals)
                                 or any(not s.sound for s in spoken))

    @property
    def fragment_only(self) -> bool:
        content = self.content
        return bool(content) and all(c.whole == "fragment" for c in content)

    @property
    def bare(self) -> str | None:
        """The whole-clause signal a one-clause content message is ("不用" → rejection), if any."""
        content = self.content
        return content[0].whole if len(content) == 1 else None

    def content_text(self) -> str:
        return " ".join(c.body for c in self.content)

    def only_offers(self, proposal: Signal) -> bool:
        """Every question it asks offers something ("Want me to set it up?", "要我先清洗吗？"): an
        offer awaits a yes, it leaves nothing open."""
        questions = [c for c in self.clauses if c.question]
        return bool(questions) and all(proposal.search(_match_text(c)) is not None for c in questions)

    def asks_mostly(self, generic: Signal) -> bool:
        """Its specific questions (not a generic offer of more help) are at least as long as what it
        states: a question back in place of an answer ("You mean X? Or Y?"), where an answer that
        ends on a follow-up question says more than it asks."""
        asked = sum(len(c.body) for c in self.content if c.question and generic.search(_match_text(c)) is None)
        said = sum(len(c.body) for c in self.content if not c.question)
        return asked > 0 and asked >= said

    def opens_with(self, signals: list[Signal], unless: list[Signal], preface: frozenset[str] = frozenset(),
                   after_preface: list[Signal] | None = None) -> bool:
        """Its first content clause shows one of ``signals`` and no later one any of ``unless``: what
        the message is mainly about, with nothing new asked after it. Leading clauses that are only a
        whole-clause signal of ``preface`` ("no, …") and show none of ``signals`` ("不对" does) are read as the preface of
        the next, which must then show one of ``after_preface`` (what "no" says depends on what was asked: only
        the words after it tell a failure from "no, nothing is broken")."""
        content = self.content

        def shows(clause: Clause, among: list[Signal]) -> bool:
            return any(s.search(_match_text(clause)) is not None for s in among)

        opening = content
        while len(opening) > 1 and opening[0].whole in preface and not shows(opening[0], signals):
            opening = opening[1:]
        if not opening or not shows(opening[0], signals if opening is content else after_preface or signals):
            return False
        return not any(s.search(_match_text(c)) is not None for c in opening[1:] for s in unless)

    def clauses_showing(self, signal: Signal) -> list[Clause]:
        """Its content clauses in which ``signal`` is found."""
        return [c for c in self.content if signal.search(_match_text(c)) is not None]

    def question_text(self) -> str:
        return " ".join(c.body for c in self.content if c.question)

    def states(self, signal: Signal, unless: Signal) -> bool:
        """One of its clauses shows ``signal`` and not ``unless`` ("Installed the package; it had not
        been installed before": the negation cancels its own clause, not the report before it)."""
        return any(signal.search(m) is not None and unless.search(m) is None
                   for m in map(_match_text, self.content))

    def states_apart_from(self, signal: Signal, marks: Signal) -> bool:
        """One of its clauses shows ``signal`` once what ``marks`` finds is taken out of it: said in
        words, not only by a mark ("✅ **碳水到位**" shows a completion only by its check mark)."""
        return any(signal.search(_without(marks, m)) is not None for m in map(_match_text, self.content))

    def says(self, signal: Signal) -> bool:
        """The signal is found in one of its content clauses that ask nothing ("已安装成功。微信是否已经打开？" says it is
        installed, whatever its question holds)."""
        return any(not c.question and signal.search(_match_text(c)) is not None for c in self.content)

    def asks_of(self, signal: Signal, put_to: Signal) -> bool:
        """The signal is found in one of its questions put to the other side (``put_to``: "Have you finished installing
        it?", "你安装完成了吗？"): what it asks about waits on them."""
        return any(c.question and signal.search(m := _match_text(c)) is not None and put_to.search(m) is not None
                   for c in self.clauses)

    def asks(self, signal: Signal) -> bool:
        """The signal is found in one of the message's questions ("修好了吗？" asks, it reports nothing)."""
        return any(c.question and signal.search(_match_text(c)) is not None for c in self.clauses)


#: what stands around a mark taken out of a clause: the spaces and emoji variation selector after it,
#: and before it spaces, or a list mark that opens the clause ("- ✅ Cron job created"); compiled (and
#: kept by re) when a mark is first taken out: a heartbeat's appended question rarely has one
_BEFORE_MARK = r"(^\s*(?:[-*+•]|\d+[.)])?)?\s*$"
_AFTER_MARK = r"^[\s\ufe0f]*"


def _without(signal: Signal, text: str) -> str:
    """``text`` with what ``signal`` finds in it taken out, match after match, together with the spaces
    or the list mark around it: a clause that opened with the mark opens with its words ("✅ Updated 12
    packages" → "Updated 12 packages", where a pattern anchored at the clause's start still finds it);
    within a clause the words either side are kept apart by one space."""
    while (found := signal.search(text)) is not None and found.end() > found.start():
        before = re.sub(_BEFORE_MARK, "", text[:found.start()])
        after = re.sub(_AFTER_MARK, "", text[found.end():])
        text = f"{before} {after}" if before and after else before + after
    return text


# What a reply can be measured against: one Chinese character, or a run of anything else but spaces
# (compiled for the first question that offers a choice: its negated range costs a heartbeat a millisecond)
_UNIT = LazyPattern(r"[\u3400-\u9fff]|[^\s\u3400-\u9fff]+")


def alternatives(reading: Reading, rules: RenalRules, markers: re.Pattern[str],
                 list_ends: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """The options a question offers ("SQLite or PostgreSQL?", "red, green or blue?", "用 A 还是 B？"),
    each with the topic words only it has: the question split at ``markers`` (or, 还是), with the
    clauses listed before it (ending in one of ``list_ends``). An option runs to where its words end
    and is no longer than the last one: "Should the database be SQLite" offers "SQLite". A question
    with one side ("Or should I wait?") or whose sides share every word ("it or not?") offers none."""
    offered: list[str] = []
    listed: list[str] = []
    for clause in reading.clauses:
        parts = markers.split(clause.body) if clause.question else []
        if len(parts) > 1 and parts[0].strip() and parts[-1].strip():
            # clauses listed before count as options when the question's first side is one too ("red,
            # green or blue?"), not when it leads in ("I checked the config, should I use A or B?")
            short = len(_UNIT.compiled().findall(parts[0])) <= len(_UNIT.compiled().findall(parts[-1]))
            offered = [*(listed if short else ()), *parts]
        ends_item = clause.end.strip() and all(c in list_ends for c in clause.end.strip())
        listed = [*listed, clause.body] if ends_item else []
    if not offered:
        return ()
    size = len(_UNIT.compiled().findall(offered[-1]))
    texts = [_last_units(part, size) for part in offered[:-1]] + [offered[-1].strip()]
    words = [keywords(text, rules) for text in texts]
    options: list[tuple[str, frozenset[str]]] = []
    for index, text in enumerate(texts):
        own = words[index].difference(*(w for other, w in enumerate(words) if other != index))
        if own:
            options.append((text, own))
    return tuple(options) if len(options) > 1 else ()


#: a list's number or letter that its mark ("2.", "b.") cut off as a clause of its own
_LIST_LABEL = re.compile(r"\s*(?:[0-9]{1,2}|[a-h])\s*", re.IGNORECASE)


def enumerated(reading: Reading, item: re.Pattern[str]) -> tuple[tuple[str, frozenset[str]], ...]:
    """The options a message lists under a number or a letter ("方案1：…", "Option B — …", "2. …"), each
    with its label as the word only it has: none unless two labels or more are listed. A list's "2." ends a
    clause of its own ("2", then "cloud sync"): the label alone, its option the clause after it."""
    options: dict[str, str] = {}
    clauses = reading.clauses
    for index, clause in enumerate(clauses):
        found = item.match(clause.body)
        if found is not None:
            options.setdefault((found.group(1) or found.group(2)).lower(), clause.body)
        elif _LIST_LABEL.fullmatch(clause.body) and index + 1 < len(clauses):
            options.setdefault(clause.body.strip().lower(), f"{clause.body.strip()}. {clauses[index + 1].body}")
    return tuple((text, frozenset({label})) for label, text in options.items()) if len(options) > 1 else ()


def _last_units(text: str, size: int) -> str:
    starts = [m.start() for m in _UNIT.compiled().finditer(text)]
    return text[starts[-size]:].strip() if len(starts) > size else text.strip()


def _closed_openings(text: str) -> set[int]:
    """Where in ``text`` an opening quotation mark is closed later on: one never closed (a stray “)
    quotes nothing, as a lone straight quote does not."""
    if not any(mark in text for mark in _QUOTE_OPEN):
        return set()
    waiting: list[int] = []
    closed: set[int] = set()
    for index, char in enumerate(text):
        if char in _QUOTE_OPEN:
            waiting.append(index)
        elif char in _QUOTE_CLOSE and waiting:
            closed.add(waiting.pop())
    return closed


def sentences(text: str) -> Iterator[str]:
    """The sentences of ``text`` (end marks inside quotations do not end one)."""
    depth = start = 0
    closed = _closed_openings(text)
    for index, char in enumerate(text):
        if index in closed:
            depth += 1
        elif char in _QUOTE_CLOSE:
            depth = max(depth - 1, 0)
        elif depth == 0 and index >= start and (end := _SENTENCE_END.match(text, index)) is not None:
            if text[start:index].strip():
                yield text[start:index]
            start = end.end()
    if text[start:].strip():
        yield text[start:]


def opening(text: str, count: int = _OPENING_SENTENCES) -> str:
    """The first ``count`` sentences of ``text``, joined."""
    return "\n".join(itertools.islice(sentences(text), count))


def own_words(text: str, rules: RenalRules) -> str:
    """The part of a message its speaker wrote: quotations with marks where they begin and end (a
    chat's reply context, an attached file), fenced blocks, terminal sessions (a prompt line and
    what follows it up to a blank line) and the lines ``[classify.pasted]`` finds (logs, stack
    traces, quotations, indented code) set aside, and a document pasted at its end (a file with its front matter)."""
    if "\n" not in text and not any(p.match(text) for p in (*rules.pasted, *rules.pasted_blocks)):
        return text
    document = min((m.start() for m in (p.search(text) for p in rules.pasted_documents) if m is not None), default=None)
    if document is not None:
        text = text[:document]
    if rules.pasted_session_runs_on and any(p.match(text.lstrip()) for p in rules.pasted_blocks):
        return _after_session(text, rules)
    kept: list[str] = []
    session = False
    lines = text.split("\n")
    quoted = _quoted_lines(lines, rules)
    for line, code, inside in zip(lines, fences.code_lines(lines), quoted, strict=True):
        if code or inside:
            continue
        session = (session and bool(line.strip())) or any(p.match(line) for p in rules.pasted_blocks)
        if not session and not any(p.match(line) for p in rules.pasted):
            kept.append(line)
    return "\n".join(kept).strip()


def _quoted_lines(lines: list[str], rules: RenalRules) -> list[bool]:
    """For each line, whether it lies in a quotation ``quotation_marks`` mark, its marks included: each
    closing line goes with the latest opening line before it not yet closed; an opening never closed
    sets nothing aside. One pass per pair of marks (a count of openings and closings, not a search
    from each opening: a paste of many openings and no closing costs no more than its length)."""
    depth = [0] * (len(lines) + 1)
    for opens, closes in rules.quotations:
        unclosed: list[int] = []
        for index, line in enumerate(lines):
            if unclosed and closes.match(line):
                depth[unclosed.pop()] += 1
                depth[index + 1] -= 1
            elif opens.match(line):
                unclosed.append(index)
    inside, running = [], 0
    for change in depth[:-1]:
        running += change
        inside.append(running > 0)
    return inside


@functools.cache
def _wide(pattern: str) -> re.Pattern[str]:
    """One of the expressions with wide character ranges, compiled when a text other than ASCII needs it."""
    return re.compile(pattern)


def _after_session(text: str, rules: RenalRules) -> str:
    """A terminal pasted whole (its output has blank lines in it): what the speaker adds about it is
    the paragraphs at its end that no pasted-line pattern finds, each of whose lines ends a sentence
    ("This fails on CI.\nFix it."), or a last paragraph of one line ("第三步为什么失败")."""
    paragraphs = [p.strip() for p in text.rstrip().split("\n\n")][1:]
    said: list[str] = []
    for index, paragraph in enumerate(reversed(paragraphs)):
        lines = paragraph.split("\n")
        if any(p.match(line) for line in lines for p in (*rules.pasted, *rules.pasted_blocks)):
            break
        if not (all(_SENTENCE_END_AT_END.search(line) for line in lines) or (index == 0 and len(lines) == 1)):
            break
        said.append(paragraph)
    return "\n\n".join(reversed(said))


def split_clauses(text: str) -> list[Clause]:
    parts = (_SPLIT_ASCII if text.isascii() else _wide(_SPLIT_PATTERN)).split(text)
    clauses: list[Clause] = []
    for index in range(0, len(parts), 2):
        body = parts[index].strip()
        end = parts[index + 1] if index + 1 < len(parts) else ""
        if body:
            clauses.append(Clause(body, end))
        elif clauses and end:
            clauses[-1].end += end
    return clauses


def _without_leading_address(text: str, rules: RenalRules) -> str:
    """``text`` from after the mention that opens it (``normalize.leading_address``): "@bot can you …?" asks as "can
    you …?" does."""
    for pattern in _normalize_patterns(rules, "leading_address"):
        found = pattern.match(text)
        if found is not None:
            return text[found.end():]
    return text


def _strip_annotations(text: str, rules: RenalRules) -> str:
    for pattern in _normalize_patterns(rules, "annotation_patterns", re.IGNORECASE):
        text = pattern.sub(" ", text)
    return text


def _normalize_patterns(rules: RenalRules, key: str, flags: int = 0) -> tuple[LazyPattern, ...]:
    """The patterns ``[classify.normalize]`` lists under ``key``, each compiled when first needed."""
    return _lazy_patterns(tuple(rules.normalize[key]), flags)


@functools.lru_cache(maxsize=16)
def _lazy_patterns(patterns: tuple[str, ...], flags: int) -> tuple[LazyPattern, ...]:
    return tuple(LazyPattern(p, flags) for p in patterns)


def normalize_clause(body: str, rules: RenalRules) -> str:
    # a phone's apostrophe ("I’m here", "t’es là") is the one the formulas are written with
    text = _strip_annotations(simplified(body.lower()).replace("\u2019", "'"), rules)
    text = (_PUNCT_ASCII if text.isascii() else _wide(_PUNCT_PATTERN)).sub(" ", text)
    return normalize_phrase(text).strip("-' ")


def _collapse_repeats(text: str, single_characters: bool) -> Iterator[str]:
    """"谢谢谢谢" → "谢谢", "yeah yeah" → "yeah": a repeated phrase says it once."""
    words = text.split()
    if len(words) > 1:
        for size in range(1, len(words) // 2 + 1):
            if len(words) % size == 0 and words == words[:size] * (len(words) // size):
                yield " ".join(words[:size])
                return
        return
    for size in range(1 if single_characters else 2, len(text) // 2 + 1):
        if len(text) % size == 0 and text == text[:size] * (len(text) // size):
            yield text[:size]
            return


#: a letter written three times or more ("heyyy", "helloooo"), or twice at the end of a word ("heyy", "hii")
_STRETCHED = re.compile(r"([a-z])\1{2,}|([a-z])\2\b")


def _unstretched(text: str) -> Iterator[str]:
    """"heyyy" → "hey", "goood morning" → "good morning": a letter drawn out for warmth says the word
    once; the run as two letters and as one, since either may be the word's own ("good", "hello")."""
    if text.isascii() and _STRETCHED.search(text):
        yield _STRETCHED.sub(lambda m: (m.group(1) or m.group(2)) * 2, text)
        yield _STRETCHED.sub(lambda m: m.group(1) or m.group(2), text)


def _strip_fillers(text: str, fillers: frozenset[str]) -> str:
    words = text.split()
    if len(words) > 1:
        while words and words[0] in fillers:
            words.pop(0)
        while words and words[-1] in fillers:
            words.pop()
        return " ".join(words)
    while len(text) > 1 and text[0] in fillers:
        text = text[1:]
    return "" if text in fillers else text


def _variants(norm: str, rules: RenalRules) -> Iterator[str]:
    """The clause as written, then without sentence-final particles, without fillers, said once."""
    particles = rules.normalize["trailing_particles"]
    single = rules.normalize["collapse_single_characters"]
    fillers = rules["filler"].phrases
    seen: set[str] = set()
    bare = norm.rstrip(particles) or norm
    plain = (bare if bare.isascii() else _wide(_EMOJI_PATTERN).sub(" ", bare)).strip() or bare
    stretched = rules.normalize["stretched_letters"]
    for candidate in (norm, bare, plain, _strip_fillers(plain, fillers)):
        for variant in (candidate, *_collapse_repeats(candidate, single), *(_unstretched(candidate) if stretched else ())):
            if variant and variant not in seen:
                seen.add(variant)
                yield variant


@functools.lru_cache(maxsize=16384)
def social_parts(norm: str, rules: RenalRules) -> tuple[Signal, ...]:
    """The social signals a normalized clause is made of, in order ("ok thanks" → acknowledgement,
    thanks); empty if it says anything else. A clause of only fillers is ``filler``."""
    filler = rules["filler"]
    if not norm:
        return (filler,)
    found = _listed(norm, rules)
    if found is not None:
        return (found,)
    joined = _joined(norm, rules)
    if joined:
        return joined
    bare = norm.rstrip(rules.normalize["trailing_particles"]) or norm
    return (filler,) if not _strip_fillers(bare, filler.phrases) or filler.match_whole(bare) else ()


def leading(parts: Sequence[Signal]) -> Signal:
    """What a clause of several formulas is read as: its first that is not a form of address ("bro you on?" pings)."""
    return next((part for part in parts if not part.attached), parts[0])


def said_as_formula(parts: tuple[Signal, ...], role: str, question: bool) -> bool:
    """``parts`` (a clause's :func:`social_parts`) make it a formula when said by ``role``: a signal of the other
    side's only ("anything else I can do?" is the agent's) or asked where the signal is never a question reads as
    content."""
    return bool(parts) and all(s.applies_to(role) for s in parts) and (
        not question or all(s.allow_question for s in parts))


#: a capitalised word, the way a name is written (compiled, and kept by re, when an agent's formula is first read)
_CAPITALISED = r"(?<![\w'’])[A-Z][a-z]+(?![\w'’])"


def _names(text: str) -> frozenset[str]:
    """The words written as names in ``text`` (capitalised after a comma or a word of the same sentence: "Good night,
    Jan!", "Hey Lucy"; not after an emoji or a mark opening the line, "🛡️ **Verifying:**"), lower-cased: in the
    agent's reply to a greeting or thanks, who it addresses. The agent's only: a user who writes "ok Continue" orders."""
    found = set()
    for match in re.finditer(_CAPITALISED, text):
        before = text[:match.start()].rstrip(" \t")
        if before and (before[-1] in ",，" or before[-1].isalpha()):
            found.add(match.group(0).lower())
    return frozenset(found)


def _social_addressing(norm: str, names: frozenset[str], rules: RenalRules, formulas: list[str]) -> tuple[Signal, ...]:
    """A formula said with the name of whom it is said to ("you're welcome jan", "hey lucy"), or the name alone
    beside such formulas ("Good night, Jan!"): the formula's signals, and the name a form of address. Only the
    formulas of ``normalize.addressed_by_name`` (``formulas`` lists the clauses read so far as formulas)."""
    if not names:
        return ()
    words = norm.split()
    kept = [word for word in words if word not in names]
    if len(kept) == len(words):
        return ()
    addressed = rules.normalize["addressed_by_name"]
    if not kept:
        near = [social_parts(normalize_clause(clause, rules), rules) for clause in formulas]
        return (rules["vocative"],) if near and all(s.name in addressed for parts in near for s in parts) else ()
    parts = social_parts(" ".join(kept), rules)
    return parts if parts and all(s.name in addressed for s in parts) else ()


def _listed(norm: str, rules: RenalRules) -> Signal | None:
    for variant in _variants(norm, rules):
        signal = rules.social_phrases.get(variant)
        if signal is None:
            signal = next((s for s in rules.social_patterns if s.match_whole(variant)), None)
        if signal is not None:
            return signal
    return None


def _joined(norm: str, rules: RenalRules) -> tuple[Signal, ...]:
    """Formulas written as one: "ok thanks", "ok great thanks", "好的谢谢", "不客气欢迎下次提问"
    (Chinese parts of two characters or more, so "好好" stays a doubled character)."""
    words = norm.split()
    if 1 < len(words) <= 6:
        return _segments(tuple(words), rules, " ", 1)
    if 4 <= len(norm) <= 16 and all_cjk(norm):
        return _segments(tuple(norm), rules, "", 2)
    return ()


def _segments(units: tuple[str, ...], rules: RenalRules, glue: str, shortest: int) -> tuple[Signal, ...]:
    """The formulas ``units`` split into, each of at least ``shortest`` units (longest first part
    first), or () when they do not split into formulas. A part never ends in a word that binds to
    the next (``binds_forward``: "可不好说" is not 可不 + 好说)."""
    binds = rules.normalize["binds_forward"]
    for cut in range(len(units) - shortest, shortest - 1, -1):
        if units[cut - 1] in binds:
            continue
        first = _listed(glue.join(units[:cut]), rules)
        if first is None:
            continue
        rest = units[cut:]
        tail = _listed(glue.join(rest), rules)
        if tail is not None:
            return (first, tail)
        more = _segments(rest, rules, glue, shortest) if len(rest) >= 2 * shortest else ()
        if more:
            return (first, *more)
    return ()


def _match_text(clause: Clause) -> str:
    """What intent patterns see: the clause lower-cased, with its question mark if it had one, and
    each link cut to its host (the words of a link's path are a page's name, not the speaker's)."""
    mark = "?" if any(m in clause.end for m in _QUESTION_MARKS) or clause.body.endswith(_QUESTION_MARKS) else ""
    body = _LINK_PATH.sub(r"\1", clause.body) if "://" in clause.body else clause.body
    return simplified(body.lower()).replace("\u2019", "'").rstrip(".。!！,，;；:：~～ ") + mark


@functools.lru_cache(maxsize=32)
def _signals_for(rules: RenalRules, role: str) -> tuple[tuple[Signal, ...], tuple[Signal, ...], tuple[Signal, ...]]:
    """(intent signals that apply to ``role``, those of them also read in formulas, whole-clause intent signals)."""
    intent = tuple(s for s in rules.intents if s.applies_to(role))
    return intent, tuple(s for s in intent if s.in_formulas), rules.whole_intents


def read(text: str, role: str, rules: RenalRules, *, social: bool = True) -> Reading:
    """Cut ``text`` into clauses and find its signals; ``social=False`` skips the social lookup
    (long messages are never made only of formulas). Short messages are cached: agents and users
    repeat themselves ("好的", "On it."), and a reading is never changed after it is made."""
    if len(text) <= _CACHED_CHARS:
        return _read_cached(text, role, rules, social)
    return _read(text, role, rules, social)


@functools.lru_cache(maxsize=4096)
def _read_cached(text: str, role: str, rules: RenalRules, social: bool) -> Reading:
    return _read(text, role, rules, social)


def _read(text: str, role: str, rules: RenalRules, social: bool) -> Reading:
    if not text.isascii():
        text = text.translate(_ARABIC_MARKS)
    if role == "user":
        text = _without_leading_address(text, rules)
    clauses = split_clauses(text)
    reading = Reading(clauses)
    matches = [_match_text(c) for c in clauses]  # what the patterns see of each clause, made once
    if clauses:
        reading.incomplete = any(mark in clauses[-1].end for mark in _INCOMPLETE_MARKS)
    question_signal, wh_signal = rules["question"], rules["wh_question"]
    indirect = rules["indirect_question"] if rules["indirect_question"].applies_to(role) else None
    # a question without its mark only as the whole message, or as each of its few clauses ("你是谁，你能做什么"):
    # in a longer one its words name what to explain
    unmarked_signal = rules["unmarked_question"]
    unmarked = unmarked_signal if unmarked_signal.applies_to(role) and (len(clauses) == 1 or (
        len(clauses) <= _UNMARKED_CLAUSES and all(unmarked_signal.search(m) is not None for m in matches))) else None
    offer = rules["proposal"] if rules["proposal"].applies_to(role) else None
    intent, in_formulas, whole_intent = _signals_for(rules, role)
    names: frozenset[str] | None = None  # the agent's, read when a clause is no formula without them
    asks_no_one = _asks_no_one(clauses, matches, text, role, rules)
    content: list[str] = []
    formulas: list[str] = []  # the clauses that are formulas, which only signals read ``in_formulas`` see
    inside = own = False  # in a quotation at the end of the clause; one the speaker asks as their own
    for index, (clause, quoted, straight) in enumerate(
            zip(clauses, _bracket_quotations(clauses), _straight_quotations(clauses), strict=True)):
        matched = matches[index]
        if (quoted or straight) and not inside:
            own = _introduces_own(clauses, index, rules)
        inside = bool(quoted or straight)
        asks = (not inside or own) and index not in asks_no_one and (question_signal.search(matched) is not None or (
            unmarked is not None and unmarked.search(matched) is not None)) and (
            indirect is None or indirect.search(matched) is None)  # "让我检查是否…": what it will find out
        if social or len(clause.body) <= 24:
            clause.norm = normalize_clause(clause.body, rules)
            clause.whole = next((s.name for s in whole_intent if s.match_whole(clause.norm)), None)
        if clause.whole == "tag_question":
            # "…, right?" / "…，对吧": a tag closing a statement (a bare "right" is a backchannel);
            # with a question mark it still asks to be answered ("报告周一交，对吧？")
            bare = clause.norm in rules["tag_question"].phrases
            closing = (clause is clauses[-1] and (len(clauses) > 1 or not bare)
                       and any(cjk_runs(clause.norm)))
            reading.tag = reading.tag or asks or closing
            clause.question = asks and not bare
        elif asks:
            clause.question = True
        if social:
            parts = social_parts(clause.norm, rules)
            if not parts and role == "assistant":
                names = _names(text) if names is None else names
                parts = _social_addressing(clause.norm, names, rules, formulas)
            if said_as_formula(parts, role, clause.question):
                clause.social = leading(parts)
                reading.social.extend(parts)
                formulas.append(matched)
                continue
        content.append(matched)
        if clause.question:
            plain = wh_signal.search(matched) is None
            reading.yes_no = reading.yes_no or (plain and (not reading.question or (
                offer is not None and offer.search(matched) is not None)))
            reading.question = True
    # one search per signal over the content clauses, one clause a line (^ and $ per clause); the formulas only by
    # the signals read in them, where the content did not hold them
    for signals, clauses_read in ((intent, content), (in_formulas, formulas)):
        if clauses_read:
            joined = "\n".join(clauses_read)
            for signal in signals:
                hit = None if signal.name in reading.found else signal.search(joined)
                if hit is not None:  # a match across clauses ("whenever it fails\nyou should") is quoted as one line
                    reading.found[signal.name] = hit.group(0).replace("\n", " ")
    if social and len(clauses) > 1 and not reading.social_only:
        _read_as_one(text, reading, rules, role)
    reading.opening = opening(text[:_OPENING_CHARS]).lower()
    return reading


def _asks_no_one(clauses: list[Clause], matches: list[str], text: str, role: str, rules: RenalRules) -> set[int]:
    """The clauses of the agent's message that put no question to the user (``signal.addressee``) whatever their
    words: one it answers at once (:func:`_self_answered`), a label ending in a colon before a line break
    (``signal.report_label``: "What's set up:", then a list; not "What's the target region:", then options), and a
    heading that titles a section of a report going on to the next heading ("### Is this a problem?", "## 一、什么是
    ACP？", whose line is two clauses)."""
    put_to = rules["addressee"] if rules["addressee"].applies_to(role) else None
    if put_to is None:
        return set()
    found = _self_answered(clauses, matches, rules, put_to)
    label = rules["report_label"]
    last_heading = max((i for i, c in enumerate(clauses) if _HEADING.match(c.body)), default=-1) if "#" in text else -1
    section = rules["section_question"] if last_heading > 0 and rules["section_question"].applies_to(role) else None
    heading = False  # the clause is on a heading's line
    for index, (clause, matched) in enumerate(zip(clauses, matches, strict=True)):
        if clause.body.endswith((":", "：")) and "\n" in clause.end and label.search(matched) is not None:
            found.add(index)
        if section is None:
            continue
        opens = _HEADING.match(clause.body) is not None
        heading = opens or (heading and "\n" not in clauses[index - 1].end)
        titled = matched if opens or not heading else "# " + matched
        if heading and index < last_heading and section.search(titled) is not None and put_to.search(matched) is None:
            found.add(index)
    return found


#: what ends the bare yes or no opening a clause ("Yes — it is safe")
_ANSWER_DASH = re.compile(r"\s+[—–-]+\s+|\s*——\s*")


def _self_answered(clauses: list[Clause], matches: list[str], rules: RenalRules, put_to: Signal) -> set[int]:
    """The clauses whose question the speaker answers at once with a bare yes or no (``[classify]
    self_answered_by``): "Is it the cache? No. The lockfile changed." asks nothing of the other side; "Can I drop
    the column? Not yet — I'll wait for your go" still asks the user (``put_to``)."""
    answers = [rules[name] for name in rules.settings["self_answered_by"]]
    found = set()
    for index, (clause, after) in enumerate(itertools.pairwise(clauses)):
        if "?" in after.end or "？" in after.end or not clause.end or clause.end[0] not in "?？" or put_to.search(
                matches[index]) is not None:
            continue
        head = _ANSWER_DASH.split(after.body, maxsplit=1)[0]
        if len(head) <= 12 and any(signal.match_whole(normalize_clause(head, rules)) for signal in answers):
            found.add(index)
    return found


def _bracket_quotations(clauses: list[Clause]) -> list[bool]:
    """For each clause, whether a quotation in 「」『』“”《》 is open at its end (one that closes later)."""
    bodies = "\n".join(clause.body for clause in clauses)
    closed = _closed_openings(bodies)
    if not closed:
        return [False] * len(clauses)
    open_at: list[bool] = []
    depth = offset = 0
    for clause in clauses:
        for index, char in enumerate(clause.body, offset):
            if index in closed:
                depth += 1
            elif char in _QUOTE_CLOSE:
                depth = max(depth - 1, 0)
        open_at.append(depth > 0)
        offset += len(clause.body) + 1
    return open_at


def _straight_quotations(clauses: list[Clause]) -> list[bool]:
    """For each clause, whether a straight-quoted quotation is open at its end: the quotes of a line
    pair up from its start, and a last one left without a partner (27", 5'10") opens nothing."""
    open_at: list[bool] = []
    counts: list[int] = []
    for number, clause in enumerate(clauses, 1):
        counts.append(clause.body.count(_STRAIGHT_QUOTE))
        if "\n" in clause.end or number == len(clauses):
            paired, seen = sum(counts) // 2 * 2, 0
            for count in counts:
                seen += count
                open_at.append(min(seen, paired) % 2 == 1)
            counts = []
    return open_at


def _introduces_own(clauses: list[Clause], index: int, rules: RenalRules) -> bool:
    """The quotation opening in ``clauses[index]`` is the speaker's own question ('My question is:
    "…?"'): the words before it, or the clause before when none, introduce it so."""
    body = clauses[index].body
    before = body[:min((i for i in map(body.find, _QUOTE_OPEN + _STRAIGHT_QUOTE) if i >= 0), default=0)]
    if not before.strip() and index:
        before = clauses[index - 1].body
    return rules["own_quotation"].search(before.lower().replace("\u2019", "'")) is not None


def _read_as_one(text: str, reading: Reading, rules: RenalRules, role: str) -> None:
    """A short message whose clauses only make sense together: "Oh, no." is "oh no", not "oh" + "no";
    not one a clause of which says an order or a rule (``read_as_one_unless``: "thanks, send it")."""
    if any(name in reading.found for name in rules.normalize.get("read_as_one_unless", ())):
        return
    norm = normalize_clause(text, rules)
    if len(norm) > 32:
        return
    parts = social_parts(norm, rules)
    if not said_as_formula(parts, role, reading.question) or parts[0].name == "filler":
        return
    end = reading.clauses[-1].end
    reading.clauses = [Clause(text, end, norm, leading(parts))]
    reading.social = list(parts)
    reading.found.clear()
    reading.question = reading.yes_no = reading.tag = False


# -- topic words ----------------------------------------------------------------------------


#: signals whose words say what kind of statement a message is ("决定", "switch", "以后"), not what
#: it is about; task verbs ("部署", "translate") stay topic words
_MARKER_SIGNALS = ("question", "wh_question", "tag_question", "preference", "preference_hint", "decision",
                   "supersede", "proposal", "completion", "continuation", "unknown", "negativity", "rejection",
                   "agreement", "apology", "fragment")


@functools.lru_cache(maxsize=8)
def _marker_terms(rules: RenalRules) -> frozenset[str]:
    """What :func:`_keywords` leaves out: markers of one word or two characters ("decided", "改用",
    "以后"); longer phrases such as "已部署" or "用中文回复" contain topic words and exclude nothing.

    It is only asked about a Latin word (a match of ``_LATIN_WORD``) and a pair of Chinese characters,
    so every phrase of the marker signals can be in it as it is: a longer phrase equals no such word
    or pair (reading each phrase with ``_LATIN_WORD`` cost every heartbeat about 0.35 ms)."""
    terms: set[str] = set()
    for signal in (rules[name] for name in _MARKER_SIGNALS):
        terms |= signal.phrases | signal.markers
    for signal in rules.social:
        # "谢谢"; English social words ("hello", "great") can be what a message is about
        terms.update(p for p in signal.phrases if len(p) == 2 and all_cjk(p))
    return frozenset(terms)


def keywords(text: str, rules: RenalRules, *, limit: int = 1500) -> frozenset[str]:
    """Topic words of ``text``: stemmed Latin words and pairs of adjacent Chinese characters,
    without stop words and without the markers' own words. Only the first ``limit`` characters
    are read (a topic shows early; memory stays bounded)."""
    return _keywords(text[:limit], rules)


@functools.lru_cache(maxsize=2048)
def _keywords(text: str, rules: RenalRules) -> frozenset[str]:
    low = text.lower()
    settings = rules.keywords
    stop_words = _stop_words(tuple(settings["en_stopwords"]))
    stop_chars = settings["zh_stop_chars"]
    markers = _marker_terms(rules)
    minimum = settings["min_word_letters"]
    found: set[str] = set()
    for word in _LATIN_WORD.findall(low):
        if len(word) >= minimum and word not in stop_words and word not in markers:
            found.add(held(stem(word)))  # decided on the stem: words of one stem stay one topic word
    for run in (match.group() for match in cjk_runs(low)):
        pairs = [run[i:i + 2] for i in range(len(run) - 1)]
        # characters inside a marker ("改用" in "部署改用") belong to no topic pair
        marked = {j for i, pair in enumerate(pairs) if pair in markers for j in (i, i + 1)}
        for i, pair in enumerate(pairs):
            if i not in marked and i + 1 not in marked and pair[0] not in stop_chars and pair[1] not in stop_chars:
                found.add(pair)
    return frozenset(found)


@functools.lru_cache(maxsize=8)
def _stop_words(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(words)


def overlap(a: frozenset[str], b: frozenset[str]) -> tuple[int, float]:
    """(shared words, shared / size of the smaller set): how much two messages are about the same thing."""
    if not a or not b:
        return 0, 0.0
    shared = len(a & b)
    return shared, shared / min(len(a), len(b))
