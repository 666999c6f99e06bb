"""``apollo transcript``: look at a transcript as Apollo reads it."""

from __future__ import annotations

from collections import Counter as Tally
from pathlib import Path
from typing import Annotated, Any

import typer

from apollo.cli.common import (
    AgentOpt,
    FormatOpt,
    JsonOpt,
    LangOpt,
    QuietOpt,
    StateDirOpt,
    VerboseOpt,
    WorkspaceOpt,
    make_env,
    run,
    warn,
)

app = typer.Typer(help="Read transcripts in every supported format.", no_args_is_help=True)

PathArg = Annotated[Path | None, typer.Argument(
    help="Transcript file (or an OpenClaw .sqlite store). Default: the agent's current session.",
    show_default=False)]
SessionOpt = Annotated[str | None, typer.Option("--session", "-s",
                                                help="Session id (or unique prefix) instead of the current one.")]
AllOpt = Annotated[bool, typer.Option("--all", "-a",
                                      help="Also list elements the model no longer sees (other branches, "
                                           "before a compaction).")]
CounterOpt = Annotated[str, typer.Option("--counter", help="Token counter: estimate or exact.")]


def _totals(transcript: Any, count: Any) -> dict[str, Any]:
    in_context = transcript.in_context()
    by_kind: Tally[str] = Tally()
    by_role: Tally[str] = Tally()
    for element in in_context:
        by_kind[str(element.kind)] += element.tokens
        by_role[str(element.role)] += element.tokens
    return {
        "elements": len(transcript.elements),
        "in_context": len(in_context),
        "tokens": transcript.total_tokens,
        "tokens_all": sum(e.tokens for e in transcript.elements),
        "envelope_tokens": sum(count(e.envelope) for e in in_context if e.envelope),
        "by_kind": dict(by_kind.most_common()),
        "by_role": dict(by_role.most_common()),
        "warnings": len(transcript.warnings),
        "counter": transcript.meta.get("counter"),
    }


def _preview(text: str, width: int = 72) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


@app.command("show")
def show(
    path: PathArg = None,
    fmt: FormatOpt = "auto",
    session: SessionOpt = None,
    agent: AgentOpt = "main",
    workspace: WorkspaceOpt = None,
    state_dir: StateDirOpt = None,
    json_out: JsonOpt = False,
    show_all: AllOpt = False,
    counter: CounterOpt = "estimate",
    lang: LangOpt = None,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """The elements of a transcript with kinds, roles and token counts, and the session's totals.

    Without PATH, the agent's most recently active session (sessions.json or the SQLite store).
    -q prints only the totals line.
    """

    def body() -> None:
        from apollo import transcript as transcripts
        from apollo.tokens import get_counter
        from apollo.transcript.discovery import resolve_source

        env = make_env(workspace=workspace, state_dir=state_dir, agent=agent, json_out=json_out, lang=lang,
                       quiet=quiet, verbose=verbose)
        source = resolve_source(env.paths, path.absolute() if path is not None else None, session)  # pastes back
        transcript = transcripts.read(source, fmt, counter=counter)
        for warning in transcript.warnings:
            warn(f"warning: {warning}")
        shown = transcript.elements if show_all else transcript.in_context()
        totals = _totals(transcript, get_counter(counter)[1])
        if env.json:
            env.emit({
                "source": str(source),
                "format": transcript.format,
                "elements": [_element_json(e) for e in shown],
                "totals": totals,
                "warnings": [{"file": w.path, "line": w.line, "message": w.message} for w in transcript.warnings],
            })
            return
        if not env.quiet:
            _print_table(source, transcript, shown)
        env.out(_totals_line(totals, env.lang))
        if totals["warnings"]:
            env.info(f"{totals['warnings']} 条警告（见 stderr）" if env.lang == "zh" else
                     f"{totals['warnings']} warning(s) on stderr")

    run(body, verbose=verbose)


def _element_json(element: Any) -> dict[str, Any]:
    return {
        "id": element.id, "index": element.index, "role": str(element.role), "kind": str(element.kind),
        "tokens": element.tokens, "in_context": element.in_context, "text": element.text,
        "envelope": element.envelope, "timestamp": element.timestamp, "parent": element.parent,
        "line": element.line, "call_id": element.call_id, "tool_name": element.tool_name,
        "speaker": element.speaker,
    }


def _print_table(source: Any, transcript: Any, shown: list[Any]) -> None:
    """One row per element. The id is printed whole, always (it is what other commands take, e.g.
    ``renal filter --drop``); the text column gets what the terminal has left, cut to one line.
    When fewer than a dozen characters are left (long ids, narrow terminal), the text goes on a
    second line under the id instead."""
    from rich.console import Console
    from rich.table import Table

    console = Console()
    table = Table(title=f"{source} ({transcript.format})", title_justify="left", box=None, pad_edge=False,
                  padding=(0, 1), header_style="bold underline")
    widths = {"#": max((len(str(e.index)) for e in shown), default=1),
              "id": max((len(e.id) for e in shown), default=2),
              "role": max((len(str(e.role)) for e in shown), default=4),
              "kind": max((len(str(e.kind)) for e in shown), default=4), "tokens": 6}
    # one space either side of each column, none at the table's edges
    text_width = console.width - sum(widths.values()) - 2 * len(widths)
    below = text_width < 12
    if below:  # the role moves to the line under the id, with the text
        del widths["role"]
    for column, width in widths.items():
        table.add_column(column, justify="right" if column in ("#", "tokens") else "left", no_wrap=True,
                         min_width=width, max_width=width, overflow="ellipsis")
    if not below:
        table.add_column("text", no_wrap=True, overflow="ellipsis", max_width=text_width)
    for element in shown:
        style = None if element.in_context else "dim"
        text = element.text if not element.tool_name or element.kind == "tool_result" \
            else f"{element.tool_name} {element.text}"
        text = text if element.in_context else "(out of context) " + text
        if below:
            line = _preview(f"{element.role}: {text}", max(widths["id"], console.width - widths["#"] - 4) - 2)
            table.add_row(str(element.index), f"{element.id}\n  {line}", str(element.kind), str(element.tokens),
                          style=style)
        else:
            table.add_row(str(element.index), element.id, str(element.role), str(element.kind), str(element.tokens),
                          _preview(text, text_width), style=style)
    console.print(table)


def _totals_line(totals: dict[str, Any], lang: str) -> str:
    kinds = ", ".join(f"{kind} {tokens}" for kind, tokens in totals["by_kind"].items())
    if lang == "zh":
        return (f"上下文中 {totals['in_context']}/{totals['elements']} 个元素，{totals['tokens']} token"
                f"（{totals['counter']}），其中信封 {totals['envelope_tokens']}；按类型：{kinds or '无'}")
    return (f"{totals['in_context']} of {totals['elements']} elements in context, {totals['tokens']} tokens "
            f"({totals['counter']}), of which {totals['envelope_tokens']} in envelopes; by kind: {kinds or 'none'}")
