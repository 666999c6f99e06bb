"""``apollo renal filter``: the seed's flow, end to end, without destroying anything.

dialysis (classify every element) → selective reabsorption (rescue waste that still carries a
decision, a preference, a task, a question or a fact) → concentration (repeats merged, old
tool output cut to head + tail, old thinking and heartbeat pairs gone, long process messages
tidied) → balance → snapshot of the important content (Q7) → output (a filtered copy in the
input's own format, or one native ``compaction`` entry for pi/OpenClaw) → the seed's report.

With ``keep_ratio`` / ``budget`` the result is then fitted into the budget
(:mod:`apollo.renal.budget`). The source is never modified, except by ``in_place`` compaction,
which only appends and refuses when the file changed while it was read.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from apollo import transcript as transcript_io
from apollo.errors import InputError, UsageError
from apollo.renal import budget as budget_mod
from apollo.renal import concentrate
from apollo.renal.condense import Condenser
from apollo.renal.salience import information
from apollo.tokens import exact_available, get_counter
from apollo.transcript.model import Edit, Element, Kind, Transcript

MUST_KEEP = ("decision", "preference", "task", "question")
MODES = ("rewrite", "compact")
#: formats whose sessions take a native compaction entry
COMPACTABLE = ("openclaw", "openclaw-sqlite")


@dataclass(slots=True)
class Fate:
    """What happens to one in-context element, and the report bucket it counts in."""

    element: Element
    category: str
    action: str = "keep"  # keep | drop | shorten
    #: the classifier's status: current | superseded | answered | done | duplicate
    status: str = "current"
    bucket: str = ""  # removed: acknowledgement, noise, process, heartbeat, thinking, duplicate, outdated, budget
    text: str | None = None
    merged_from: list[str] = field(default_factory=list)
    rescued: str | None = None
    #: superseded, answered or done: kept by default, the first to go under a budget
    outdated: bool = False
    #: kept as process by the classifier; made only of social words, it is excreted as noise
    social_candidate: bool = False
    confirm: bool = False
    must_keep: bool = False
    in_tail: bool = False
    tokens_after: int = 0


@dataclass(slots=True)
class FilterResult:
    report: dict[str, Any]
    output_path: Path | None
    snapshot_path: Path | None
    edits: dict[str, Edit]
    fates: list[Fate]
    transcript: Transcript


def filter_path(path: Path | Any, fmt: str = "auto", config: Any = None, keep_ratio: float | None = None,
                budget: int | None = None, mode: str = "rewrite", output: Path | None = None,
                dry_run: bool = False, *, workspace: Path | None = None, lang: str | None = None,
                in_place: bool = False) -> FilterResult:
    """Filter the transcript at ``path``; see the module docstring for the flow."""
    from apollo import config as config_mod
    from apollo.renal import report as report_mod

    config = config or config_mod.load(workspace)
    _check_options(keep_ratio, budget, mode, in_place, output)
    budgeted = keep_ratio is not None or budget is not None
    counter_name = "exact" if budgeted and exact_available() else config.get("general.counter")
    transcript = transcript_io.read(path, fmt, counter=counter_name)
    if mode == "compact" and transcript.format not in COMPACTABLE:
        raise UsageError(f"--mode compact needs an OpenClaw/pi session, not {transcript.format}",
                         where=str(path), hint="use --mode rewrite for this format")
    count = get_counter(counter_name)[1]
    rules = concentrate.load(_user_rule_files(config))
    condenser = Condenser(rules.condense)
    elements = transcript.in_context()
    conversation_lang = language_of(elements)
    report_lang = lang or conversation_lang

    fates, balance_state = dialysis(elements, config)
    names = frozenset(e.speaker.lower() for e in elements if e.speaker)
    reabsorb(fates, rules, condenser, names)
    concentrate_fates(fates, rules, condenser, count, conversation_lang)
    for fate in fates:
        fate.tokens_after = _tokens_after(fate, count)
    budget_fit = None
    total_before = sum(e.tokens for e in elements)
    if budgeted:
        target = budget if budget is not None else int(math.floor(total_before * float(keep_ratio or 0)))
        if counter_name != "exact":
            target = int(target * rules["estimate_margin"])
        budget_fit = fit_budget(fates, target, condenser, count, names)

    edits = edits_of(fates)
    snapshot_path = None
    output_path = None
    compaction = None
    if not dry_run:
        from apollo.renal import snapshot as snapshot_mod

        destination = output if output is not None or in_place else default_output(path, transcript)
        snapshot_path = snapshot_mod.write(fates, transcript, _snapshot_dir(config, workspace, destination))
        if mode == "compact":
            compaction = write_compaction(path, transcript, fates, destination if not in_place else None,
                                          in_place, rules, conversation_lang)
            output_path = Path(path) if in_place else destination
        else:
            transcript_io.write(path, destination, edits, fmt=transcript.format)
            output_path = destination
    report = report_mod.build(transcript, fates, budget_fit, balance_state, report_lang,
                              counter=get_counter(counter_name)[0], mode=mode, output=output_path,
                              snapshot=snapshot_path, dry_run=dry_run, compaction=compaction)
    return FilterResult(report, output_path, snapshot_path, edits, fates, transcript)


def _check_options(keep_ratio: float | None, budget: int | None, mode: str, in_place: bool,
                   output: Path | None) -> None:
    if keep_ratio is not None and budget is not None:
        raise UsageError("give --keep-ratio or --budget, not both")
    if keep_ratio is not None and not 0 < keep_ratio <= 1:
        raise UsageError(f"--keep-ratio must be in (0, 1], got {keep_ratio}", hint="e.g. --keep-ratio 0.5")
    if budget is not None and budget <= 0:
        raise UsageError(f"--budget must be a positive number of tokens, got {budget}")
    if mode not in MODES:
        raise UsageError(f"unknown mode {mode!r}", hint="use --mode rewrite or --mode compact")
    if in_place and mode != "compact":
        raise UsageError("--in-place is only for --mode compact (it appends one entry to the session)",
                         hint="rewrite mode always writes a copy (-o PATH)")
    if in_place and output is not None:
        raise UsageError("give --in-place or -o/--output, not both")


def _user_rule_files(config: Any) -> tuple[str, ...]:
    from apollo.renal import rules as classifier_rules

    sources = classifier_rules.load(config).sources
    return tuple(sources[len(classifier_rules.BUILTIN_FILES):])


def language_of(elements: list[Element]) -> str:
    """``zh`` when Chinese characters are a good share of what the user and agent wrote."""
    cjk = latin = 0
    for element in elements:
        if element.kind is not Kind.TEXT:
            continue
        for char in element.text[:2000]:
            if "\u3400" <= char <= "\u9fff":
                cjk += 1
            elif char.isascii() and char.isalpha():
                latin += 1
    return "zh" if cjk * 3 >= latin and cjk else "en"


# -- 1. dialysis ------------------------------------------------------------------------------------
def dialysis(elements: list[Element], config: Any) -> tuple[list[Fate], dict[str, Any]]:
    """The classifier's verdict for every element as a first fate, and its balance."""
    from apollo.renal import classify as classify_mod

    classifier = classify_mod.Classifier(config)
    verdicts = {v.id: v for v in classify_mod._collect(classifier, elements, classify_mod.Tally())}
    fates: list[Fate] = []
    for element in elements:
        verdict = verdicts.get(element.id)
        fate = Fate(element, verdict.category if verdict else "process")
        fates.append(fate)
        if verdict is not None:
            fate.status = verdict.status
            fate.outdated = verdict.status != "current"
        if verdict is None or element.kind is Kind.METADATA:
            continue
        if verdict.category in MUST_KEEP and verdict.status == "current":
            fate.must_keep = True
        elif verdict.action == "confirm":
            fate.confirm = True
        elif verdict.action == "keep" and verdict.status == "current" and not (
                verdict.category in ("process", "noise") and element.kind is Kind.TEXT):
            continue
        elif verdict.duplicate_of:
            fate.action, fate.bucket, fate.text = "drop", "duplicate", verdict.duplicate_of
        elif verdict.status != "current":
            continue  # outdated: demoted but kept, the first to go under a budget, never lost by default
        elif verdict.action == "keep" and not verdict.rule.startswith("context:answer"):
            fate.social_candidate = True
        elif verdict.action == "drop":
            fate.action = "drop"
            fate.bucket = "acknowledgement" if verdict.confirmation else verdict.category
        elif verdict.action == "compress" and element.kind is not Kind.TOOL_CALL:
            fate.action = "shorten"
    return fates, classifier.balance.result().to_dict()


# -- 2. selective reabsorption -----------------------------------------------------------------------
def reabsorb(fates: list[Fate], rules: concentrate.FilterRules, condenser: Condenser, names: frozenset[str]) -> None:
    """Waste that still carries a fact is rescued: kept if it was noise, as process otherwise.

    The converse check runs too: a message kept as process that is nothing but greetings,
    thanks and acknowledgements (every sentence phatic, no fact) is excreted as noise.
    """
    for fate in fates:
        element = fate.element
        if fate.social_candidate and condenser.is_phatic(element.text, names) and not concentrate.carries_fact(
                element.text, rules, condenser, names):
            fate.action, fate.bucket, fate.category = "drop", "noise", "noise"
            continue
        if fate.action != "drop" or element.kind is not Kind.TEXT:
            continue
        if fate.bucket in ("noise", "process", "acknowledgement"):
            text = element.text
        else:
            continue
        fact = concentrate.carries_fact(text, rules, condenser, names) if text.strip() else None
        if fact:
            fate.rescued = fact
            fate.action = "keep" if fate.bucket in ("noise", "acknowledgement") else "shorten"
            fate.bucket = ""


# -- 3. concentration ---------------------------------------------------------------------------------
def concentrate_fates(fates: list[Fate], rules: concentrate.FilterRules, condenser: Condenser,
                      count: Callable[[str], int], lang: str) -> None:
    elements = [f.element for f in fates]
    tail = concentrate.tail_start(elements, rules["recent_turns"])
    by_id = {f.element.id: f for f in fates}
    heartbeats = concentrate.heartbeat_pairs(elements)
    for position, fate in enumerate(fates):
        element = fate.element
        fate.in_tail = position >= tail
        if element.id in heartbeats:
            fate.action, fate.bucket, fate.must_keep = "drop", "heartbeat", False
        elif fate.in_tail:
            if fate.action == "drop" and fate.bucket not in ("acknowledgement", "noise"):
                fate.action, fate.bucket = "keep", ""
            elif fate.action == "shorten":
                fate.action = "keep"
        elif element.kind is Kind.THINKING:
            fate.action, fate.bucket = "drop", "thinking"
        elif element.kind is Kind.TOOL_RESULT:
            cut = concentrate.cut_output(element.text, rules, count, lang)
            if cut is not None:
                fate.action, fate.text, fate.bucket = "shorten", cut, "tool_output"
        elif fate.action == "shorten" and element.kind is Kind.TEXT:
            forms = condenser.ladder(element.text, ())
            if forms:
                fate.text = forms[0][1]
            else:
                fate.action = "keep"
    for fate in fates:  # duplicates named by the classifier join the element they repeat
        if fate.bucket == "duplicate" and fate.text in by_id:
            target = by_id[fate.text]
            if target.action != "drop":
                target.merged_from.append(fate.element.id)
            fate.text = None
    eligible = {f.element.id for f in fates if f.action != "drop" and not f.in_tail}
    for later, earlier_ids in concentrate.repeats(elements, condenser, rules, eligible).items():
        by_id[later].merged_from.extend(earlier_ids)
        for earlier in earlier_ids:
            earlier_fate = by_id[earlier]
            earlier_fate.action, earlier_fate.bucket = "drop", "duplicate"
            by_id[later].must_keep = by_id[later].must_keep or earlier_fate.must_keep
            earlier_fate.must_keep = False


def _tokens_after(fate: Fate, count: Callable[[str], int]) -> int:
    if fate.action == "drop":
        return 0
    if fate.action == "shorten" and fate.text is not None:
        return count(fate.text) + (count(fate.element.envelope) if fate.element.envelope else 0)
    return fate.element.tokens


# -- budget --------------------------------------------------------------------------------------------
def fit_budget(fates: list[Fate], target: int, condenser: Condenser, count: Callable[[str], int],
               names: frozenset[str]) -> budget_mod.Fit:
    """Shorten and drop kept elements until they fit ``target`` tokens (noise is already gone)."""
    alive = [f for f in fates if f.action != "drop"]
    fixed = [f for f in alive if f.element.kind in (Kind.METADATA,)]
    groups = _budget_groups([f for f in alive if f not in fixed])
    values = information([" ".join(_still_informative(f) for f in group) for group in groups], condenser)
    candidates = []
    for position, (group, value) in enumerate(zip(groups, values, strict=True)):
        lead = group[-1]
        forms = [budget_mod.Form("full", "", sum(f.tokens_after for f in group))]
        if len(group) == 1 and lead.element.kind is Kind.TEXT:
            base = lead.text if lead.action == "shorten" and lead.text is not None else lead.element.text
            envelope = count(lead.element.envelope) if lead.element.envelope else 0
            for name, text in condenser.ladder(base, names):
                tokens = count(text) + envelope
                if tokens < forms[-1].tokens:
                    forms.append(budget_mod.Form(name, text, tokens))
        must = any(f.must_keep or f.in_tail or f.element.kind is Kind.COMPACTION for f in group)
        candidates.append(budget_mod.Candidate(lead.element.id, value, position, forms, must_keep=must))
    room = target - sum(f.tokens_after for f in fixed)
    fit = budget_mod.fit(candidates, room)
    fit.budget = target
    fit.tokens += sum(f.tokens_after for f in fixed)
    for group, candidate in zip(groups, candidates, strict=True):
        chosen = fit.chosen.get(candidate.id)
        if chosen is None:
            for f in group:
                f.action, f.bucket, f.tokens_after = "drop", "outdated" if f.outdated else "budget", 0
        elif chosen > 0:
            lead = group[-1]
            form = candidate.forms[chosen]
            lead.action, lead.text, lead.tokens_after = "shorten", form.text, form.tokens
    return fit


def _still_informative(fate: Fate) -> str:
    """What of an element still informs: an answered question's statements, nothing of a
    superseded decision or a finished task (redundancy goes before process)."""
    if not fate.outdated:
        return fate.element.text
    return concentrate.without_questions(fate.element.text) if fate.status == "answered" else ""


def _budget_groups(fates: list[Fate]) -> list[list[Fate]]:
    """Tool calls travel with their results (one cannot stay without the other)."""
    groups: list[list[Fate]] = []
    open_calls: dict[str, list[Fate]] = {}
    for fate in fates:
        element = fate.element
        if element.kind is Kind.TOOL_CALL and element.call_id:
            group = [fate]
            open_calls[element.call_id] = group
            groups.append(group)
        elif element.kind is Kind.TOOL_RESULT and element.call_id in open_calls:
            open_calls.pop(element.call_id).append(fate)
        else:
            groups.append([fate])
    return groups


# -- output --------------------------------------------------------------------------------------------
def edits_of(fates: list[Fate]) -> dict[str, Edit]:
    edits: dict[str, Edit] = {}
    for fate in fates:
        element_id = fate.element.id
        if fate.action == "drop":
            edits[element_id] = Edit("drop", note=fate.bucket)
        elif fate.action == "shorten" and fate.text is not None:
            edits[element_id] = Edit("replace", text=fate.text, merged_from=list(fate.merged_from),
                                     note=fate.bucket or "condensed")
        elif fate.merged_from:
            edits[element_id] = Edit("replace", text=None, merged_from=list(fate.merged_from), note="merged")
    return edits


def default_output(path: Path | Any, transcript: Transcript) -> Path:
    """``<name>.filtered<suffix>`` next to the input; never an existing file."""
    source = (Path(transcript.source) if transcript.source is not None else Path(str(path))).absolute()
    if transcript.format == "openclaw-sqlite":
        stem, suffix = source.stem, ".jsonl"
    else:
        name = source.name
        stem, suffix = (name.split(".jsonl")[0], ".jsonl") if ".jsonl" in name else (source.stem, source.suffix)
    folder = source.parent
    candidate = folder / f"{stem}.filtered{suffix}"
    number = 2
    while candidate.exists():
        candidate = folder / f"{stem}.filtered-{number}{suffix}"
        number += 1
    return candidate


def _snapshot_dir(config: Any, workspace: Path | None, destination: Path | None) -> Path:
    """``<workspace>/.renal/snapshots``; without a workspace, beside the output (never created blindly)."""
    from apollo.workspace import resolve_workspace

    root = resolve_workspace(workspace)
    relative = Path(config.get("renal.snapshot_dir"))
    if root.is_dir():
        return root / relative
    base = Path(destination).parent if destination is not None else Path.cwd()
    return base / relative


def write_compaction(path: Path | Any, transcript: Transcript, fates: list[Fate], dest: Path | None,
                     in_place: bool, rules: concentrate.FilterRules, lang: str) -> dict[str, Any]:
    """Append one native compaction entry: renal's digest of everything before the kept tail."""
    from apollo.renal import digest

    tail = [f for f in fates if f.in_tail and f.element.record_id]
    if not tail:
        raise InputError("nothing to compact: the session has no turns before its recent tail", where=str(path))
    first_kept = tail[0].element.record_id
    before = [f for f in fates if not f.in_tail]
    if not before:
        raise InputError("nothing to compact: every entry is in the recent tail", where=str(path),
                         hint="the last turns always stay; a longer session can be compacted")
    summary = digest.build(before, lang, rules["digest_item_chars"])
    tokens_before = sum(f.element.tokens for f in fates)
    entry_id = transcript_io.append_compaction(path, dest, summary, first_kept, tokens_before, in_place=in_place,
                                               expected=transcript.meta.get("fingerprint"))
    return {"entry_id": entry_id, "first_kept_entry_id": first_kept, "tokens_before": tokens_before,
            "summary_tokens": get_counter("estimate")[1](summary), "summary": summary,
            "digested": len(before)}
