"""``apollo transcript``: look at a transcript as Apollo reads it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from apollo.cli.common import FormatOpt, Shared, warn, with_env

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


def _preview(text: str, width: int = 72) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


@app.command("show")
@with_env
def show(
    shared: Shared,
    path: PathArg = None,
    fmt: FormatOpt = "auto",
    session: SessionOpt = None,
    show_all: AllOpt = False,
    counter: CounterOpt = "estimate",
) -> None:
    """The elements of a transcript with kinds, roles and token counts, and the session's totals.

    Without PATH, the agent's most recently active session (sessions.json or the SQLite store).
    -q prints only the totals line.
    """
    from apollo import transcript as transcripts
    from apollo.tokens import get_counter
    from apollo.transcript.discovery import resolve_source

    env = shared.env()
    source = resolve_source(env.paths, path.absolute() if path is not None else None, session)  # pastes back
    transcript = transcripts.read(source, fmt, counter=counter)
    for warning in transcript.warnings:
        warn(f"warning: {warning}")
    shown = transcript.elements if show_all else transcript.in_context()
    totals = transcript.totals(get_counter(counter)[1])
    if env.json:
        env.emit({
            "source": str(source),
            "format": transcript.format,
            "elements": [e.to_dict() for e in shown],
            "totals": totals,
            "warnings": [w.to_dict() for w in transcript.warnings],
        })
        return
    if not env.quiet:
        _print_table(source, transcript, shown)
    env.out(_totals_line(totals, env.lang))
    if totals["warnings"]:
        env.info(f"{totals['warnings']} 条警告（见 stderr）" if env.lang == "zh" else
                 f"{totals['warnings']} warning(s) on stderr")


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
