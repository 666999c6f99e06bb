"""``apollo renal``: classify, check and filter a transcript (non-destructive)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from apollo.cli.common import (
    FormatOpt,
    Shared,
    warn,
    with_env,
)

app = typer.Typer(help="renal: classify, check and filter the context without destroying anything.",
                  no_args_is_help=True)


SessionOpt = Annotated[str | None, typer.Option(
    "--session", "-s", help="Which session: an id or unique prefix among the agent's sessions (without INPUT), or "
                            "in an OpenClaw .sqlite INPUT \\[default: the most recent].", show_default=False)]
_INPUT_HELP = ("Transcript file (any supported format, or an OpenClaw .sqlite store) \\[default: the agent's current "
               "session, as `renal check` finds it].")


def _where_args(env, source) -> list[str]:  # noqa: ANN001 - Env, Path | SessionRef
    """The arguments that name ``source`` again from any folder: absolute paths, the workspace if any."""
    from apollo.transcript.openclaw_sqlite import SessionRef

    named = [str(source.db), "--session", source.session_id] if isinstance(source, SessionRef) else \
        [str(Path(source).absolute())]
    return [*named, *(["-w", str(env.workspace)] if env.workspace.is_dir() else [])]


def _command(*words: str) -> str:
    """A command line to paste into a shell."""
    import shlex

    return " ".join(["apollo", *(shlex.quote(word) for word in words)])


def _source(env, input_path: Path | None, session: str | None):  # noqa: ANN001, ANN202 - Env -> Path | SessionRef
    from apollo.transcript.discovery import resolve_source

    # absolute: every path the command prints (source, output, snapshot) pastes back from any folder
    return resolve_source(env.paths, input_path.absolute() if input_path is not None else None, session)


_CATEGORY_STYLE = {"decision": "bold green", "preference": "bold cyan", "task": "bold yellow",
                   "question": "bold magenta", "process": "", "noise": "dim"}


@app.command("classify")
@with_env
def classify(
    shared: Shared,
    input_path: Annotated[Path | None, typer.Argument(metavar="INPUT", help=_INPUT_HELP, show_default=False)] = None,
    fmt: FormatOpt = "auto",
    session: SessionOpt = None,
    only: Annotated[list[str] | None, typer.Option(
        "--only", help="Table: show only this category (repeatable): decision, preference, task, question, "
                       "process, noise.", show_default=False)] = None,
) -> None:
    """Classify every element of a transcript: category, action, confidence and the reason.

    Categories: decision, preference, task, question (kept while current), process, noise.
    Actions: keep, compress, drop, confirm (uncertain: never dropped without you).
    A table, then the summary (-q: the summary alone). With --json: {"messages": [{"id", "category", "action", "confidence", "reason", ...}], "summary": {...}},
    one message per element, in order.
    """
    from apollo.renal.api import classify_path
    from apollo.renal.classify import CATEGORIES

    unknown = sorted(set(only or ()) - set(CATEGORIES))
    if unknown:
        from apollo.errors import UsageError

        raise UsageError(f"unknown category {', '.join(unknown)}", hint=f"use one of: {', '.join(CATEGORIES)}")
    env = shared.env()
    result = classify_path(_source(env, input_path, session), fmt, env.config)
    for warning in result.summary["warnings"]:
        warn(f"apollo: warning: {warning}")
    if env.json:
        env.emit({"messages": [v.to_dict() for v in result.verdicts], "summary": result.summary})
        return
    if not env.quiet:
        _print_classification(result, set(only or CATEGORIES))
    env.out(_classification_summary(result.summary, env.lang))


def _print_classification(result, shown: set[str]) -> None:  # noqa: ANN001 - apollo.renal.api.ClassifyResult
    """The table of the verdicts in ``shown`` categories, with the text and the reason."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    summary = result.summary
    table = Table(title=f"apollo renal classify · {summary['format']}", show_lines=False, expand=True)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("who", no_wrap=True)
    table.add_column("category", no_wrap=True)
    table.add_column("action", no_wrap=True)
    table.add_column("conf", justify="right", no_wrap=True)
    table.add_column("text  ·  reason", ratio=1)
    for index, (element, verdict) in enumerate(zip(result.transcript.elements, result.verdicts, strict=True), 1):
        if verdict.category not in shown:
            continue
        text = escape(" ".join((element.text or f"[{element.kind.value}]").split()))
        status = "" if verdict.status == "current" else f" ({verdict.status})"
        style = _CATEGORY_STYLE[verdict.category]
        who = element.role.value if element.kind.value == "text" else element.kind.value.replace("_", " ")
        table.add_row(str(index), who, f"[{style}]{verdict.category}[/]" if style else verdict.category,
                      verdict.action + status, f"{verdict.confidence:.2f}",
                      f"{text[:160]}{'…' if len(text) > 160 else ''}\n[dim]{escape(verdict.reason)}[/]")
    Console().print(table)


def _classification_summary(summary: dict, lang: str) -> str:
    keep = summary["keep"]
    icon = summary["balance"]["icon"]
    if lang == "zh":
        return (f"{summary['elements']} 个元素 · {summary['tokens']} token（{summary['counter']}）· "
                f"信息密度 {summary['density']:.0%} · 预计节省 {summary['estimated_saving']:.0%}\n"
                f"保留：{keep['decisions']} 个决策、{keep['preferences']} 个偏好、{keep['active_tasks']} 个进行中任务、"
                f"{keep['open_questions']} 个未决问题 · 重复确认 {summary['confirmations']} 次 · "
                f"待确认 {summary['needs_confirmation']} · 平衡 {icon}")
    return (f"{summary['elements']} elements · {summary['tokens']} tokens ({summary['counter']}) · "
            f"density {summary['density']:.0%} · estimated saving {summary['estimated_saving']:.0%}\n"
            f"keep: {keep['decisions']} decision(s), {keep['preferences']} preference(s), {keep['active_tasks']} active "
            f"task(s), {keep['open_questions']} open question(s) · {summary['confirmations']} repeated confirmation(s) · "
            f"{summary['needs_confirmation']} to confirm · balance {icon}")


@app.command("check")
@with_env
def check(
    shared: Shared,
    input_path: Annotated[Path | None, typer.Argument(
        metavar="INPUT", help="Transcript to measure \\[default: the agent's current session, else today's "
                                "memory/YYYY-MM-DD.md in the workspace].", show_default=False)] = None,
    fmt: FormatOpt = "auto",
    session: SessionOpt = None,
    no_write: Annotated[bool, typer.Option("--no-write", help="Do not write .renal/filter-state.json.")] = False,
) -> None:
    """Measure the context (the heartbeat check): tokens, density, confirmations, tasks, topics, balance.

    Filtering is needed when two or more thresholds are exceeded (renal.token_threshold,
    renal.density_threshold, renal.confirmation_threshold). Writes <workspace>/.renal/filter-state.json
    and ends with the heartbeat line: 🫘 上下文正常 / 🫘 上下文需过滤（节省X%） (-q prints only that line).
    """
    import sys

    from apollo.renal import check as check_mod
    from apollo.renal.check_cache import heartbeat_line, write_state

    env = shared.env()
    env.paths.require(workspace=False, state_dir=input_path is None)
    source = _source(env, input_path, session) if input_path is not None or session is not None else None
    # where the state goes (--no-write: nowhere; a file measured outside any workspace needs none)
    env.paths.require(workspace=not no_write, state_dir=False,
                      otherwise=", or measure without writing the state with --no-write" if input_path else "")
    if sys.stderr.isatty() and not env.json and not env.quiet:
        from rich.console import Console

        with Console(stderr=True).status("checking the context…") as status:
            result = check_mod.check(env.paths, env.config, source, fmt,
                                     progress=lambda n: status.update(f"checking the context… {n:,} elements"))
    else:
        result = check_mod.check(env.paths, env.config, source, fmt)
    state_path = None if no_write else write_state(env.paths, result)
    line = heartbeat_line(result, env.lang)
    if env.json:
        env.emit({**result.to_state(), "state_file": str(state_path) if state_path else None, "heartbeat": line})
        return
    if not env.quiet:
        env.out(check_mod.render_report(result, env.lang))
        if state_path is not None:
            env.out(f"{'状态已写入' if env.lang == 'zh' else 'state written to'} {state_path}")
        env.out()
    env.out(line)


@app.command("filter")
@with_env
def filter_(
    shared: Shared,
    input_path: Annotated[Path | None, typer.Argument(metavar="INPUT", help=_INPUT_HELP, show_default=False)] = None,
    fmt: FormatOpt = "auto",
    session: SessionOpt = None,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="Where to write the result \\[default: <input>.filtered<ext> next to the input, "
                               "never over an existing file].", show_default=False)] = None,
    keep_ratio: Annotated[float | None, typer.Option(
        "--keep-ratio", help="Fit into this share of the tokens (0-1]: noise first, then redundancy, then the "
                             "least informative process; must-keep last.", show_default=False)] = None,
    budget: Annotated[int | None, typer.Option("--budget", help="Fit into this many tokens (like --keep-ratio).",
                                               show_default=False)] = None,
    mode: Annotated[str, typer.Option("--mode", help="rewrite: a filtered copy in the input's format; compact: "
                                                     "append one native compaction entry (OpenClaw/pi only).")] = "rewrite",
    in_place: Annotated[bool, typer.Option("--in-place", help="--mode compact: append to the session itself "
                                                              "(refused if it changes while Apollo reads it).")] = False,
    drop: Annotated[list[str] | None, typer.Option(
        "--drop", help="Drop this element (an id the report lists under 'needs confirmation'); repeat or "
                       "separate with commas. Without it, those elements are kept.", show_default=False)] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Report only: write nothing, no snapshot.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing -o/--output file.")] = False,
) -> None:
    """Filter a transcript: keep what matters, concentrate repetition, drop noise, report the saving.

    Non-destructive: the input is never changed (except `--mode compact --in-place`, which only
    appends one entry). The important content is snapshotted to <workspace>/.renal/snapshots/ first.
    """
    from apollo.renal import report as report_mod
    from apollo.renal.filter import filter_path

    env = shared.env()
    # a workspace named (or needed to find the session) must exist; without one, INPUT's outputs go beside it
    named = shared.workspace is not None or bool(os.environ.get("OPENCLAW_WORKSPACE_DIR"))
    env.paths.require(workspace=named or input_path is None, state_dir=input_path is None)
    source = _source(env, input_path, session)
    dropped = [part for value in drop or () for part in value.split(",") if part]
    result = filter_path(source, fmt, env.config, keep_ratio=keep_ratio, budget=budget, mode=mode,
                         output=output.absolute() if output is not None else None, dry_run=dry_run,
                         workspace=shared.workspace,
                         lang=env.lang if shared.lang or env.config.get("general.lang") else None, in_place=in_place,
                         overwrite=force, drop=dropped)
    again = [*_where_args(env, source), *(["--keep-ratio", str(keep_ratio)] if keep_ratio is not None else []),
             *(["--budget", str(budget)] if budget is not None else []), *(["--mode", mode] if mode != "rewrite" else [])]
    for item in result.report["needs_confirmation"]:
        item["drop_command"] = _command("renal", "filter", *again, "--drop", ",".join([*dropped, item["id"]]))
    for warning in result.report["warnings"]:
        warn(f"apollo: warning: {warning}")
    if env.json:
        env.emit(result.report)
        return
    if env.quiet:
        env.out(str(result.output_path) if result.output_path else report_mod.render(result.report, env.lang))
        return
    env.out(report_mod.render(result.report, result.report["lang"]))


@app.command("report")
@with_env
def report(
    shared: Shared,
    input_path: Annotated[Path | None, typer.Argument(metavar="INPUT", help=_INPUT_HELP, show_default=False)] = None,
    html: Annotated[Path | None, typer.Option(
        "--html", help="Where to write the page \\[default: ./<input name>.renal-report.html]; an earlier Apollo "
                       "report there is replaced, any other file is refused.", show_default=False)] = None,
    fmt: FormatOpt = "auto",
    session: SessionOpt = None,
    keep_ratio: Annotated[float | None, typer.Option(
        "--keep-ratio", help="Show the filter fitting this share of the tokens (as `renal filter --keep-ratio`).",
        show_default=False)] = None,
    budget: Annotated[int | None, typer.Option("--budget", help="Show the filter fitting this many tokens.",
                                               show_default=False)] = None,
) -> None:
    """Write one self-contained HTML page of what the filter would do: the timeline by category, what is
    kept, merged and dropped (and why), tokens before and after, the balance over time, the must-keep list.

    Read-only: it runs the filter as a dry run. The page works offline (no network, no CDN).
    """
    from apollo.renal.html_report import default_html_path, write_report

    env = shared.env()
    env.paths.require(workspace=shared.workspace is not None, state_dir=input_path is None)
    source = _source(env, input_path, session)
    destination = (html if html is not None else default_html_path(source)).absolute()
    made = write_report(source, destination, fmt, env.config, keep_ratio=keep_ratio, budget=budget,
                        workspace=shared.workspace,
                        lang=env.lang if shared.lang or env.config.get("general.lang") else None)
    for warning in made.report["warnings"]:
        warn(f"apollo: warning: {warning}")
    if env.json:
        env.emit({"html": str(made.output), "elements": len(made.data["elements"]),
                  "report": made.report})
        return
    env.out(str(made.output) if env.quiet else
            f"{made.output}  ({len(made.data['elements']):,} elements, saving {made.report['saving']:.0%}; "
            f"open it in a browser)")
