"""The heartbeat check (SPEC §1.3): measure the current context, decide whether it needs filtering.

Reads the agent's current session (the most recently active one in its session store), else
today's ``memory/YYYY-MM-DD.md`` — streamed through the classifier, so a 50 MB session is
measured in bounded memory. Filtering is needed when ``min_exceeded`` (default two) of the
thresholds are exceeded: tokens, information density, repeated confirmations. The result goes
to ``<workspace>/.renal/filter-state.json`` (written atomically) and prints as the seed's report
and its one heartbeat line, ``🫘 上下文正常`` / ``🫘 上下文需过滤（节省X%）``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from apollo import clock
from apollo.records import field, slotted
from apollo.renal import check_resume
from apollo.renal.check_cache import default_source, fingerprint, heartbeat_line, verdict, write_state

# the state file and the heartbeat line live with the memo, which the heartbeat uses without the
# classifier; they are part of this module's interface too
__all__ = ["UPSTREAM_FIELDS", "CheckResult", "check", "heartbeat_line", "render_report", "write_state"]

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing itself, and the classifier's modules load only when a check really runs (the heartbeat's memo)
    from typing import Any

    from apollo.config import Config
    from apollo.renal.balance import Balance
    from apollo.renal.check_cache import Found
    from apollo.workspace import Paths

#: the fields the upstream renal-check.sh writes, in its order, then Apollo's own
UPSTREAM_FIELDS = ("tokens", "density", "confirmations", "active_tasks", "active_topics", "warnings",
                   "needs_filter", "status", "checked_at")


@slotted()
class CheckResult:
    tokens: int
    density: float
    confirmations: int
    active_tasks: int
    active_topics: int
    open_questions: int
    estimated_saving: float
    balance: Balance
    #: which thresholds are exceeded: "tokens", "density", "confirmations"
    exceeded: list[str]
    warnings: list[str]
    needs_filter: bool
    #: "normal" (nothing exceeded, balance not red), "watch" (fewer exceeded than needed, or a red
    #: balance), "needs_filter": the one verdict (apollo.renal.check_cache.verdict)
    status: str
    checked_at: str
    source: str | None
    format: str | None
    counter: str
    elements: int = 0
    thresholds: dict[str, Any] = field(default_factory=dict)
    state_file: str = ".renal/filter-state.json"
    #: what the result was computed from (:mod:`apollo.renal.check_cache`); None: not reusable
    fingerprint: dict[str, Any] | None = None
    #: elements this check classified: all of them, or only the appended ones when it resumed
    classified: int = 0

    def to_state(self) -> dict[str, Any]:
        """The filter-state.json document: the upstream fields, then Apollo's."""
        return {
            "tokens": self.tokens,
            "density": round(self.density, 4),
            "confirmations": self.confirmations,
            "active_tasks": self.active_tasks,
            "active_topics": self.active_topics,
            "warnings": self.warnings,
            "needs_filter": self.needs_filter,
            "status": self.status,
            "checked_at": self.checked_at,
            "estimated_saving": round(self.estimated_saving, 4),
            "balance": self.balance.to_dict(),
            "source": self.source,
            "format": self.format,
            "counter": self.counter,
            "open_questions": self.open_questions,
            "elements": self.elements,
            "exceeded": self.exceeded,
            "thresholds": self.thresholds,
            "saving_percent": round(self.estimated_saving * 100),
            "fingerprint": self.fingerprint,
        }


def _thresholds(config: Config) -> dict[str, Any]:
    renal = config.section("renal")
    return {"tokens": renal["token_threshold"], "density": renal["density_threshold"],
            "confirmations": renal["confirmation_threshold"], "min_exceeded": renal["min_exceeded"]}


def _exceeded(tokens: int, density: float, confirmations: int, limits: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The thresholds (SPEC §1.3) a transcript exceeds, and the line that says each."""
    over = {"tokens": (tokens > limits["tokens"], f"tokens {tokens} > {limits['tokens']}"),
            "density": (bool(tokens) and density < limits["density"],
                        f"density {density:.0%} < {limits['density']:.0%}"),
            "confirmations": (confirmations > limits["confirmations"],
                              f"confirmations {confirmations} > {limits['confirmations']}")}
    exceeded = [name for name, (is_over, _) in over.items() if is_over]
    return exceeded, [over[name][1] for name in exceeded]


def check(paths: Paths, config: Config, source: Any | None = None, fmt: str = "auto", *,
          progress: Callable[[int], None] | None = None, session_id: str | None = None,
          resume: bool = False, found: Found | None = None) -> CheckResult:
    """Measure ``source`` (default: the current session, else today's memory file).

    The whole transcript streams through the classifier and the filter's own fate stream
    (:mod:`apollo.renal.fates`) without being held in memory: density and estimated saving are
    what ``apollo renal filter`` (default mode) reports for the same transcript.
    ``progress`` is called with the number of elements read so far, every few thousand;
    ``session_id`` picks one of the agent's sessions instead of the current one. With ``resume``
    the check continues from the state the last resumed check of the same session left, when the
    session only grew since (:mod:`apollo.renal.check_resume`), and leaves its own. ``found``: the
    source, its notes and its stamp as :func:`~apollo.renal.check_cache.reusable_state` found them
    (the heartbeat looks only once).
    """
    from apollo.renal import classify
    from apollo.tokens import get_counter
    from apollo.transcript.model import DeferredChanged, ReadWarning

    limits = _thresholds(config)
    if found is not None:
        source, notes, stamp = found
    else:
        notes = []
        if source is None:
            source, notes = default_source(paths, session_id)
        stamp = fingerprint(source, config, notes=notes, fmt=fmt)  # before reading: a later write shows next time
    counter = config.get("general.counter")
    reading = _Reading(config, counter, progress)
    read_warnings: list[ReadWarning] = []
    format_name: str | None = None
    if source is not None:
        from apollo.transcript import detect, get_format

        # a SessionRef (one session of OpenClaw's SQLite store) is detected by its database file
        format_name = (detect(Path(getattr(source, "db", source))) if fmt == "auto" else get_format(fmt)).name
        if resume and stamp is not None:
            reading.resume(check_resume.resume_path(paths), _resume_key(stamp, format_name, counter), source, fmt,
                           format_name, read_warnings)
        else:
            reading.whole(source, fmt, None, read_warnings)
    resumed, stream = reading.resumed, reading.stream
    chain = resumed.chain if resumed is not None else check_resume.Chain()
    fed = chain.count
    save = None
    if resume and stamp is not None:
        def save(classifier: Any, tally: Any) -> None:
            known = (resumed.redacted, resumed.clean) if resumed is not None else (None, frozenset[str]())
            check_resume.save(check_resume.resume_path(paths), _resume_key(stamp, format_name, counter),
                              check_resume.Resumed(chain, classifier, tally, stream, *known), reading.tail)
    elements = reading.elements
    try:
        classification = classify.run(chain.through(elements), config, retain=False, observe=stream.observe,
                                      resume=(resumed.classifier, resumed.tally) if resumed is not None else None,
                                      before_finish=save)
        measure = stream.finish()
    except DeferredChanged:  # an element read again is not what the state held: check the session whole
        check_resume.forget(check_resume.resume_path(paths))
        return check(paths, config, fmt=fmt, progress=progress, session_id=session_id, resume=resume,
                     found=(source, notes, stamp))
    summary = classification.summary
    confirmations = summary["confirmations"]
    exceeded, warnings = _exceeded(measure.tokens, measure.density, confirmations, limits)
    needs_filter = len(exceeded) >= limits["min_exceeded"]
    balance = classification.balance
    warnings += notes
    warnings += [f"balance {balance.level}: {', '.join(s.kind for s in balance.signs)}"] if balance.signs else []
    if read_warnings:
        warnings.append(f"{len(read_warnings)} unreadable record(s) skipped, first: {read_warnings[0]}")
    return CheckResult(
        tokens=measure.tokens, density=measure.density, confirmations=confirmations,
        active_tasks=summary["keep"]["active_tasks"], active_topics=summary["active_topics"],
        open_questions=summary["keep"]["open_questions"], estimated_saving=measure.saving, balance=balance,
        exceeded=exceeded, warnings=warnings, needs_filter=needs_filter,
        status="needs_filter" if needs_filter else "watch" if exceeded or balance.level == "red" else "normal",
        checked_at=clock.now().isoformat(timespec="seconds"), source=str(source) if source is not None else None,
        format=format_name, counter=get_counter(counter)[0], elements=summary["elements"], thresholds=limits,
        state_file=config.get("renal.state_file"),
        fingerprint=stamp, classified=chain.count - fed,
    )


def _resume_key(stamp: dict[str, Any], format_name: str | None, counter: str) -> str:
    """Which session, read how, checked by which Apollo, rules and configuration (not its size)."""
    return repr((stamp["source"], stamp["inode"], stamp["device"], stamp["inputs"], format_name, counter))


class _Reading:
    """The elements a check feeds its streams, and the streams: fresh ones and the whole source,
    or the last check's (:mod:`apollo.renal.check_resume`) and only what follows what it fed them."""

    def __init__(self, config: Config, counter: str, progress: Callable[[int], None] | None):
        from apollo.tokens import get_counter

        self.config, self.counter, self.progress = config, counter, progress
        self.count = get_counter(counter)[1]
        self.elements: Iterator[Any] = iter(())
        self._fresh()

    def _fresh(self) -> None:
        from apollo.renal import fates

        self.stream = fates.FateStream.for_config(self.config, self.count, retain=False)
        self.resumed: check_resume.Resumed | None = None
        #: where the read stopped, when the next check can read only what is appended
        self.tail: Any = None

    def whole(self, source: Any, fmt: str, format_name: str | None, warnings: list[Any]) -> None:
        """Every element of ``source``; an OpenClaw session file is read with a note of where it stops."""
        from apollo.transcript import iter_elements

        if format_name == "openclaw" and isinstance(source, (str, os.PathLike)):
            from apollo.transcript.base import file_lines
            from apollo.transcript.openclaw_read import Tail, iter_session_elements

            path = Path(source)
            self.tail = Tail()
            elements = iter_session_elements(file_lines(path), str(path), warnings, self.count, self.tail)
        else:
            elements = iter_elements(source, fmt, counter=self.counter, warnings=warnings)
        self.elements = _counted(elements, self.progress)

    def resume(self, saved_at: Path, key: str, source: Any, fmt: str, format_name: str | None,
               warnings: list[Any]) -> None:
        """From the last check's streams when the session only grew since: read from where it stopped
        when the format can, else read whole and compared with what it fed them; else whole and fresh."""
        from apollo.renal.classify import Classifier

        saved = check_resume.load(saved_at, key)
        if saved is None:
            self.whole(source, fmt, format_name, warnings)
            return
        if saved.tail is not None and format_name == "openclaw" and isinstance(source, (str, os.PathLike)):
            from apollo.transcript.openclaw_tail import read_appended

            read = read_appended(Path(source), saved.tail, saved.spots, self.count, saved.holds)
            if read is not None:
                held, appended, tail = read
                self.resumed = saved.resume_held(held, Classifier(self.config), self.stream)
                if self.resumed is not None:
                    self.elements, self.tail = _counted(appended, self.progress), tail
                    return
        self.whole(source, fmt, format_name, warnings)
        self.resumed = saved.resume(self.elements, Classifier(self.config), self.stream)
        if self.resumed is None:  # not a grown session: read it again, whole, with fresh streams
            self._fresh()
            warnings.clear()
            self.whole(source, fmt, format_name, warnings)


def _counted(elements: Iterable[Any], progress: Callable[[int], None] | None) -> Iterator[Any]:
    for count, element in enumerate(elements, 1):
        yield element
        if progress is not None and count % 5000 == 0:
            progress(count)


_TEXT: dict[str, dict[str, Any]] = {
    "zh": {
        "title": "🫘 [apollo-renal] 上下文净化报告", "state": "当前状态：", "tokens": "Token估算",
        "density": "有效信息密度", "confirmations": "重复确认", "tasks": "进行中任务", "topics": "活跃话题",
        "questions": "未解决问题", "saving": "预计节省", "balance": "平衡状态", "source": "来源",
        "times": "次", "items": "个", "none": "（未找到当前会话或今日记忆文件）",
        "icons": {"normal": "🟢", "watch": "🟡", "needs_filter": "🔴"}, "next": "下一步建议",
        "next_normal": "继续当前任务", "next_filter": "运行 apollo renal filter（或等待用户确认）",
        "next_dream": ("触发 apollo-dream（巩固和关联记忆的配套技能，不属于 Apollo）；若未安装：先运行 apollo renal filter，"
                       "再请 agent 把决策和进行中的任务写进 memory/ 后开始新会话"),
    },
    "en": {
        "title": "🫘 [apollo-renal] context check", "state": "Current state:", "tokens": "Tokens",
        "density": "Information density", "confirmations": "Repeated confirmations", "tasks": "Active tasks",
        "topics": "Active topics", "questions": "Open questions", "saving": "Estimated saving", "balance": "Balance",
        "source": "Source", "times": "", "items": "", "none": "(no current session and no memory file for today)",
        "icons": {"normal": "🟢", "watch": "🟡", "needs_filter": "🔴"}, "next": "Next step",
        "next_normal": "carry on with the current task", "next_filter": "run apollo renal filter (or wait for the user)",
        "next_dream": ("run apollo-dream (the companion skill that consolidates and connects memories; it is not "
                       "part of Apollo); if it is not installed: run apollo renal filter, then ask the agent to write "
                       "the decisions and open tasks to memory/ and start a fresh session"),
    },
}


def render_report(result: CheckResult, lang: str = "zh") -> str:
    """The seed's renal-check.sh report, then what Apollo adds (saving, balance, source)."""
    t = _TEXT[lang]
    counter = "" if result.counter == "estimate" else f" ({result.counter})"
    lines = [
        t["title"], t["state"],
        f"  - {t['tokens']}：{result.tokens}{counter}" if lang == "zh" else f"  - {t['tokens']}: {result.tokens}{counter}",
    ]
    rows = [
        (t["density"], f"{result.density:.0%}"),
        (t["confirmations"], f"{result.confirmations}{t['times']}"),
        (t["tasks"], f"{result.active_tasks}{t['items']}"),
        (t["topics"], f"{result.active_topics}{t['items']}"),
        (t["questions"], f"{result.open_questions}{t['items']}"),
        (t["saving"], f"{result.estimated_saving:.0%}"),
        (t["balance"], result.balance.describe(lang)),
        (t["source"], result.source or t["none"]),
    ]
    separator = "：" if lang == "zh" else ": "
    lines += [f"  - {name}{separator}{value}" for name, value in rows]
    lines += ["", f"{t['icons'][result.status]}  {verdict(result, lang)}"]
    advice = (t["next_dream"] if result.balance.level == "red" else
              t["next_filter"] if result.needs_filter else t["next_normal"])
    lines.append(f"{t['next']}{separator}{advice}")
    return "\n".join(lines)
