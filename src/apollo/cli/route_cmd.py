"""``apollo route``: which system and tier a user's request calls for."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from apollo.cli.common import JsonOpt, LangOpt, QuietOpt, VerboseOpt, WorkspaceOpt, make_env, run


def route(
    text: Annotated[str, typer.Argument(help="What the user said ('-' reads it from stdin).",
                                        show_default=False)] = "",
    token_usage: Annotated[str | None, typer.Option(
        "--token-usage", help="Share of the context window in use: 0.93, 93 or 93%.", show_default=False)] = None,
    workspace: WorkspaceOpt = None,
    json_out: JsonOpt = False,
    lang: LangOpt = None,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Which system and tier a user's request calls for, and the confirmation it needs.

    Priority autophagy > renal > dream; token usage above 90%/95% adds warnings and never
    suggests a destructive tier by itself. --json prints
    {"system", "tier", "confirmation", "warnings", "reason"}; -q leaves out the reason.
    """

    def body() -> None:
        from apollo.integration.route import decide_with_config, parse_usage

        env = make_env(workspace=workspace, json_out=json_out, lang=lang, quiet=quiet, verbose=verbose)
        said = sys.stdin.read() if text == "-" else text
        decision = decide_with_config(said, parse_usage(token_usage), env.config, env.lang)
        if json_out:
            env.emit(decision.to_dict())
            return
        zh = env.lang == "zh"
        tier = f" · {decision.tier}" if decision.tier else ""
        env.out(f"{'系统' if zh else 'system'}: {decision.system}{tier} · "
                f"{'确认' if zh else 'confirmation'}: {decision.confirmation}")
        env.info(f"{'原因' if zh else 'reason'}: {decision.reason}")
        for warning in decision.warnings:
            env.out(f"⚠️  {warning}")

    run(body, verbose=verbose)


def register(app: typer.Typer) -> None:
    app.command("route")(route)
