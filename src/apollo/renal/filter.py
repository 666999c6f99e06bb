"""``apollo renal filter``: the seed's flow, end to end, without destroying anything.

dialysis (classify every element) → selective reabsorption (rescue waste that still carries a
decision, a preference, a task, a question or a fact) → concentration (repeats merged, old
tool output cut to head + tail, old thinking and heartbeat pairs gone, long process messages
tidied) → balance → snapshot of the important content (Q7) → output (a filtered copy in the
input's own format, or one native ``compaction`` entry for pi/OpenClaw) → the seed's report.
Steps 1-3 decide each element's fate in one stream (:mod:`apollo.renal.fates`), the same one
``apollo renal check`` measures with, so both report the same density and saving.

With ``keep_ratio`` / ``budget`` the result is then fitted into the budget
(:mod:`apollo.renal.budget`). The source is never modified, except by ``in_place`` compaction,
which only appends and refuses when the file changed while it was read.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from apollo import transcript as transcript_io
from apollo.errors import InputError, UsageError
from apollo.renal import budget as budget_mod
from apollo.renal import classify as classify_mod
from apollo.renal import concentrate
from apollo.renal import fates as fates_mod
from apollo.renal.classify import Classification
from apollo.renal.compaction import kept_text, plan_compaction, write_compaction
from apollo.renal.condense import Condenser
from apollo.renal.fates import Fate
from apollo.renal.salience import information
from apollo.tokens import exact_available, get_counter
from apollo.transcript.model import Edit, Element, Kind, Role, Transcript

if TYPE_CHECKING:
    from apollo.config import Config

MODES = ("rewrite", "compact")
#: formats whose sessions take a native compaction entry
COMPACTABLE = ("openclaw", "openclaw-sqlite")


@dataclass(slots=True)
class FilterResult:
    report: dict[str, Any]
    output_path: Path | None
    snapshot_path: Path | None
    edits: dict[str, Edit]
    fates: list[Fate]
    transcript: Transcript


def filter_path(path: Path | Any, fmt: str = "auto", config: Config | None = None, keep_ratio: float | None = None,
                budget: int | None = None, mode: str = "rewrite", output: Path | None = None,
                dry_run: bool = False, *, workspace: Path | None = None, lang: str | None = None,
                in_place: bool = False, overwrite: bool = False, drop: Collection[str] = ()) -> FilterResult:
    """Filter the transcript at ``path``; see the module docstring for the flow. ``drop``: element
    ids the user decided to remove (what a report lists as needing confirmation)."""
    from apollo import config as config_mod
    from apollo.renal import report as report_mod

    config = config or config_mod.load(workspace)
    _check_options(keep_ratio, budget, mode, in_place, output)
    budgeted = keep_ratio is not None or budget is not None
    counter_name = "exact" if budgeted and exact_available() else config.get("general.counter")
    transcript = transcript_io.read(path, fmt, counter=counter_name)
    _check_readable(transcript, path)
    if mode == "compact" and transcript.format not in COMPACTABLE:
        raise UsageError(f"--mode compact needs an OpenClaw/pi session, not {transcript.format}",
                         where=str(path), hint="use --mode rewrite for this format")
    if in_place and transcript.format != "openclaw":
        raise UsageError("an OpenClaw SQLite session cannot be changed in place", where=str(path),
                         hint="write a JSONL copy (-o PATH) and import it with openclaw doctor --session-sqlite import")
    count = get_counter(counter_name)[1]
    rules = concentrate.load_for(config)
    condenser = Condenser(rules.condense)
    elements = transcript.in_context()
    conversation_lang = fates_mod.language_of(elements)
    report_lang = lang or conversation_lang

    classification = dialysis(elements, config)
    # 2. selective reabsorption and 3. concentration, element by element (shared with the check)
    fates, measure = fates_mod.decide(elements, classification.verdicts, rules, condenser, count, conversation_lang)
    _drop_on_request(fates, measure, drop, where=str(path))
    names = frozenset(e.speaker.lower() for e in elements if e.speaker)
    budget_fit = None
    target = None
    total_before = sum(e.tokens for e in elements)
    if budgeted:
        target = budget if budget is not None else int(math.floor(total_before * float(keep_ratio or 0)))
        if counter_name != "exact":
            target = int(target * rules["estimate_margin"])
    plan = None
    if mode == "compact":
        plan = plan_compaction(fates, rules, conversation_lang, count, target, where=str(path),
                               messages=target is None and not in_place and transcript.format == "openclaw")
        budget_fit = plan.fit(target) if target is not None else None
    elif target is not None:
        budget_fit = fit_budget(fates, target, condenser, count, names, rules, conversation_lang,
                                structured=transcript_io.get_format(transcript.format).structured)

    edits = edits_of(fates) if mode == "rewrite" else {}
    snapshot_path = None
    output_path = None
    compaction = plan.describe(count) if plan is not None else None
    if not dry_run:
        from apollo.renal import snapshot as snapshot_mod

        destination = output if output is not None or in_place else default_output(path, transcript, workspace, config)
        if destination is not None and not overwrite:
            _refuse_existing(destination)
        if in_place:
            _check_unchanged(transcript)  # refuse before anything is written, the snapshot included
        snapshot_path = snapshot_mod.write(fates, transcript, _snapshot_dir(config, workspace, destination))
        if plan is not None and compaction is not None:
            compaction["entry_id"] = write_compaction(path, transcript, plan, None if in_place else destination,
                                                      in_place)
            output_path = Path(path) if in_place else destination
        else:
            assert destination is not None  # in_place is refused outside compact mode (_check_options)
            transcript_io.write(path, destination, edits, fmt=transcript.format)
            output_path = destination
    report = report_mod.build(transcript, fates, measure, budget_fit, classification.balance.to_dict(), report_lang,
                              counter=get_counter(counter_name)[0], mode=mode, output=output_path,
                              snapshot=snapshot_path, dry_run=dry_run, compaction=compaction)
    return FilterResult(report, output_path, snapshot_path, edits, fates, transcript)


def _drop_on_request(fates: list[Fate], measure: Any, drop: Collection[str], where: str) -> None:
    """The user's answer to "needs confirmation": these elements go (bucket ``confirmed``)."""
    if not drop:
        return
    unknown = set(drop) - {fate.element.id for fate in fates}
    if unknown:
        raise UsageError(f"--drop names no element of this transcript: {', '.join(sorted(unknown))}", where=where,
                         hint="use the ids the report lists (apollo renal filter --json: needs_confirmation)")
    for fate in fates:
        if fate.element.id in drop and fate.action != "drop":
            measure.after -= fate.tokens_after
            fate.action, fate.bucket, fate.confirm, fate.must_keep, fate.tokens_after = "drop", "confirmed", False, False, 0


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


def _refuse_existing(destination: Path) -> None:
    """Never replace a file the user already has: nothing is lost unless they say so."""
    if destination.is_symlink() or (destination.exists() and (not destination.is_file()
                                                                or destination.stat().st_size > 0)):
        from apollo.errors import Refused

        raise Refused("the output already exists; nothing was written", where=str(destination),
                      hint="choose another -o/--output, or pass --force to replace it")


def _check_readable(transcript: Transcript, path: Path | Any) -> None:
    """A file none of whose records could be read is not a transcript of that format: say so, write nothing."""
    if transcript.elements or not transcript.warnings:
        return
    first = transcript.warnings[0]
    raise InputError(f"nothing in it reads as {transcript.format} ({len(transcript.warnings)} unreadable line(s); "
                     f"the first: {first.message.split(';')[0]})",
                     where=f"{first.path}:{first.line}" if first.line else str(path),
                     hint="check --format (auto detects it), or repair the file")


def _check_unchanged(transcript: Transcript) -> None:
    from apollo.errors import Refused
    from apollo.transcript.base import Fingerprint

    source = transcript.source
    expected = transcript.meta.get("fingerprint")
    if source is not None and expected is not None and Fingerprint.of(Path(source)) != expected:
        raise Refused("the session changed while Apollo was reading it (size, time or content); nothing was written",
                      where=str(source), hint="run the filter again on the new state of the session")


# -- 1. dialysis --------------------------------------------------------------------------------------
def dialysis(elements: list[Element], config: Config | None) -> Classification:
    """Every element classified (decision, preference, task, question, process, noise), and the balance."""
    return classify_mod.run(elements, config)


# -- budget --------------------------------------------------------------------------------------------
def fit_budget(fates: list[Fate], target: int, condenser: Condenser, count: Callable[[str], int],
               names: frozenset[str], rules: concentrate.FilterRules | None = None, lang: str = "en", *,
               structured: bool = False) -> budget_mod.Fit:
    """Shorten and drop kept elements until they fit ``target`` tokens (noise is already gone).

    Tool output gives way first, the recent tail's included (a call and its result go together,
    and an output keeps its first line and the lines later messages mention before it goes); the
    user's latest request always stays, even when it alone is over the budget. ``structured``: the
    elements' parents are the headings and items they stand under (a Markdown file), which stay
    with them."""
    rules = rules or concentrate.load()
    alive = [f for f in fates if f.action != "drop"]
    # metadata stays as it is; a document's headings (metadata of a structured format) only with what
    # stands under them
    fixed = [f for f in alive if f.element.kind is Kind.METADATA and not structured]
    groups = _budget_groups([f for f in alive if f not in fixed])
    values = information([" ".join(_still_informative(f) for f in group)[:_VALUE_CHARS] for group in groups], condenser,
                         rules, names)
    trimmed = _trimmed_tool_groups(groups, rules, count, lang)
    latest = _latest_request(groups)
    carried = _above_must_keep(alive) if structured else set()
    candidates = []
    leaned: set[str] = set()  # the messages whose forms count their envelope lean (written so when shortened)
    for position, (group, value) in enumerate(zip(groups, values, strict=True)):
        lead = group[-1]
        forms = [budget_mod.Form("full", "", sum(f.tokens_after for f in group), keeps_content=True)]
        opening = None
        if len(group) == 1 and lead.element.kind is Kind.TEXT:
            base = lead.text if lead.action == "shorten" and lead.text is not None else lead.element.text
            envelope = count(lead.element.envelope) if lead.element.envelope else 0
            lean = _lean_envelope(lead, count)
            if lean is not None:  # the user's words whole, less the metadata blocks around them
                envelope = lean
                leaned.add(lead.element.id)
                forms.append(budget_mod.Form("lean", base, count(base) + lean, keeps_content=True))
            ladder = condenser.ladder(base, names)
            substance = _substance(base, ladder, condenser)
            for name, text in ladder:
                tokens = count(text) + envelope
                if tokens < forms[-1].tokens:
                    forms.append(budget_mod.Form(name, text, tokens,
                                                 keeps_content=substance <= condenser.content_units(text)))
            opening = functools.partial(_opening, base, envelope, count, rules, lang)
        elif position in trimmed and trimmed[position][0] < forms[-1].tokens:
            forms.append(budget_mod.Form("trimmed", "", trimmed[position][0]))
        tool = any(f.element.kind in (Kind.TOOL_CALL, Kind.TOOL_RESULT) for f in group)
        must = not tool and any(f.must_keep or f.in_tail or f.element.kind is Kind.COMPACTION
                                or f.element.id in carried for f in group)
        priority = 2 if position == latest else 1 if any(f.must_keep or f.element.id in carried for f in group) else 0
        candidates.append(budget_mod.Candidate(lead.element.id, value, position, forms, must_keep=must,
                                               priority=priority, opening=opening if must else None,
                                               under=lead.element.parent if structured else None,
                                               structure=lead.element.kind is Kind.METADATA))
    room = target - sum(f.tokens_after for f in fixed)
    fit = budget_mod.fit(candidates, room)
    fit.budget = target
    fit.tokens += sum(f.tokens_after for f in fixed)
    for position, (group, candidate) in enumerate(zip(groups, candidates, strict=True)):
        chosen = fit.chosen.get(candidate.id)
        if chosen is None:
            for f in group:
                f.action, f.bucket, f.tokens_after = "drop", "outdated" if f.outdated else "budget", 0
        elif chosen > 0 and candidate.forms[chosen].name == "trimmed":
            for f, (cut, tokens) in zip(group, trimmed[position][1], strict=True):
                if cut is not None:
                    f.action, f.text, f.bucket, f.tokens_after = "shorten", cut, "tool_output", tokens
        elif chosen > 0:
            lead = group[-1]
            form = candidate.forms[chosen]
            lead.action, lead.text, lead.tokens_after = "shorten", form.text, form.tokens
            lead.lean = lead.element.id in leaned
            if form.name == "opening":  # words went, not only the ones that carry no content
                lead.bucket = "opened"
    return fit


def _lean_envelope(fate: Fate, count: Callable[[str], int]) -> int | None:
    """The tokens of a user's envelope in its lean form (:meth:`EnvelopeRules.lean`: the metadata
    blocks' ids for tools left out, the sender's name kept), when that is shorter and the message
    stands before the recent tail, else None: under a budget those ids give way before the user's
    words (a Discord message's blocks cost more than a short reply, which had gone whole for them).
    The recent tail keeps its ids: the message the agent is answering may be reacted to by its id."""
    element = fate.element
    if fate.in_tail or element.role is not Role.USER or not element.envelope:
        return None
    kept = kept_text(element)
    lean = kept[:len(kept) - len(element.text)]
    return count(lean) if len(lean) < len(element.envelope) else None


def _above_must_keep(fates: list[Fate]) -> set[str]:
    """The headings and items a must-keep block of a document stands under: part of what it says
    ("- 简单优先" without its "### 技术选型原则" reads as the section before's), kept with it."""
    parent_of = {f.element.id: f.element.parent for f in fates}
    carried: set[str] = set()
    for fate in fates:
        if fate.must_keep:
            parent = fate.element.parent
            while parent is not None and parent not in carried:
                carried.add(parent)
                parent = parent_of.get(parent)
    return carried


def _opening(text: str, envelope: int, count: Callable[[str], int], rules: concentrate.FilterRules, lang: str,
             room: int) -> budget_mod.Form | None:
    """A message's opening within ``room`` tokens, its envelope (time, sender) whole beside it."""
    cut = concentrate.opening(text, room - envelope, count, rules, lang)
    return budget_mod.Form("opening", cut[0], cut[1] + envelope) if cut is not None else None


def _substance(text: str, ladder: list[tuple[str, str]], condenser: Condenser) -> frozenset[str]:
    """The content words of a message once its phatic sentences and fillers are gone (its ``tidy``
    form): what a shortened must-keep message still has to hold, every one of them."""
    tidy = next((shortened for name, shortened in ladder if name == "tidy"), text)
    return condenser.content_units(tidy)


def _trimmed_tool_groups(groups: list[list[Fate]], rules: concentrate.FilterRules, count: Callable[[str], int],
                         lang: str) -> dict[int, tuple[int, list[tuple[str | None, int]]]]:
    """For each group holding a tool output kept whole (the recent tail's): its tokens with the
    output trimmed as an old one is (first line, the lines later messages mention, the marker)
    and the call's long arguments cut, and each member's new text (None: unchanged)."""
    anchors = rules.anchors
    later: set[str] = set()
    found: dict[int, tuple[int, list[tuple[str | None, int]]]] = {}
    for position in range(len(groups) - 1, -1, -1):
        group = groups[position]
        members: list[tuple[str | None, int]] = []
        changed = False
        for fate in group:
            element = fate.element
            text: str | None = None
            if element.kind is Kind.TOOL_RESULT and fate.action == "keep" and element.tokens > rules["tool_keep_tokens"]:
                text = concentrate.cut_old_output(element.text, later, rules, lang, element.tokens)
            elif element.kind is Kind.TOOL_CALL and fate.action == "keep":
                text = concentrate.cut_arguments(element.text, rules)
            if text is None:
                members.append((None, fate.tokens_after))
            else:
                envelope = count(element.envelope) if element.envelope else 0
                members.append((text, count(text) + envelope))
                changed = True
        if changed:
            found[position] = (sum(tokens for _, tokens in members), members)
        for fate in group:
            if fate.element.kind is Kind.TEXT and fate.element.role in (Role.USER, Role.ASSISTANT):
                later |= anchors.of(fate.element.text)
    return found


def _latest_request(groups: list[list[Fate]]) -> int | None:
    """The position of the group holding the user's latest message: a budget never takes it."""
    for position in range(len(groups) - 1, -1, -1):
        if any(f.element.role is Role.USER and f.element.kind is Kind.TEXT for f in groups[position]):
            return position
    return None


#: what of a message (or a tool call and its output) its value is read from: a message's worth has
#: long been told by then, and reading all of a 30 MB output would cost more than the rest of the run
_VALUE_CHARS = 20_000


def _still_informative(fate: Fate) -> str:
    """What of an element still informs: what the default filter left of it, an answered
    question's statements, nothing of a superseded decision or of the agent's finished task
    (redundancy goes before process). A task the user asked for and the agent finished still says
    what the work was for: its words weigh as process does (the calls that did the work had
    outlasted "not this cron job, the other one")."""
    if not fate.outdated or (fate.status == "done" and fate.element.role is Role.USER):
        return fate.text if fate.action == "shorten" and fate.text is not None else fate.element.text
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
                                     note=fate.bucket or "condensed", lean=fate.lean)
        elif fate.merged_from:
            edits[element_id] = Edit("replace", text=None, merged_from=list(fate.merged_from), note="merged")
    return edits


def default_output(path: Path | Any, transcript: Transcript, workspace: Path | None, config: Config) -> Path:
    """``<name>.filtered<suffix>``, never an existing file: in the workspace's ``.renal/filtered/``
    when the input is one of an agent's sessions (a copy beside it would be taken for a session),
    else next to the input. A session of an OpenClaw SQLite store becomes ``<session id>.filtered.jsonl``.
    """
    from apollo.transcript.discovery import in_agent_store

    source = (Path(transcript.source) if transcript.source is not None else Path(str(path))).absolute()
    if transcript.format == "openclaw-sqlite":
        stem, suffix = str(transcript.meta.get("session", source.stem)).rpartition("#")[2], ".jsonl"
    else:
        name = source.name
        stem, suffix = (name.split(".jsonl")[0], ".jsonl") if ".jsonl" in name else (source.stem, source.suffix)
    folder = source.parent
    if in_agent_store(source, transcript.format):
        folder = _renal_folder(config, workspace, "filtered", where=str(source))
    candidate = folder / f"{stem}.filtered{suffix}"
    number = 2
    while candidate.exists():
        candidate = folder / f"{stem}.filtered-{number}{suffix}"
        number += 1
    return candidate


def _renal_folder(config: Config, workspace: Path | None, name: str, where: str) -> Path:
    """``<workspace>/.renal/<name>`` (next to the configured snapshot folder), created private."""
    from apollo.atomic import private_dir
    from apollo.workspace import resolve_workspace

    root = resolve_workspace(workspace)
    if not root.is_dir():
        raise InputError(f"workspace {root} does not exist; the filtered copy of an agent's session goes to "
                         "its .renal/ folder", where=where, hint="pass --workspace PATH, or -o PATH")
    return private_dir(root / Path(config.get("renal.snapshot_dir")).parent / name)


def _snapshot_dir(config: Config, workspace: Path | None, destination: Path | None) -> Path:
    """``<workspace>/.renal/snapshots``; without a workspace, beside the output (never created blindly)."""
    from apollo.workspace import resolve_workspace

    root = resolve_workspace(workspace)
    relative = Path(config.get("renal.snapshot_dir"))
    if root.is_dir():
        return root / relative
    base = Path(destination).parent if destination is not None else Path.cwd()
    return base / relative
