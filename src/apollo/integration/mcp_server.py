"""``apollo mcp``: renal and autophagy as Model Context Protocol tools (official SDK, stdio).

Any MCP client (Claude Code, Claude Desktop, an OpenAI-style agent with an MCP bridge) gets the
same library functions as the CLI. The destructive path keeps the CLI's protocol: a plan first
(nothing deleted), then ``autophagy_execute`` with that plan's id. For large, the phrase and the
plan's code must stand in the user's own latest message of the current session (see
:mod:`apollo.autophagy.human`): a tool call can never stand in for the user's confirmation.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from apollo import __version__
from apollo.errors import ApolloError, UsageError
from apollo.records import Record, field_names

if TYPE_CHECKING:
    from apollo.config import Config
    from apollo.workspace import Paths

INSTRUCTIONS = """Apollo keeps this agent's working memory healthy.
- renal_* tools never destroy anything: renal_check measures the context, renal_classify labels each
  element (decision, preference, task, question, process, noise), renal_filter keeps what matters,
  renal_recall returns verbatim what Apollo's context engine filtered out of this conversation.
- autophagy_* tools delete, always in two steps: autophagy_plan(tier) shows what would go and returns a
  plan id; autophagy_execute(plan_id) runs it. Show the plan to the user and execute only after the user
  confirms. Tier "large" is confirmed by the user alone: their own message must contain the words the plan
  names; Apollo reads them in the session's transcript, and refuses otherwise. You cannot confirm it for them.
  Never run medium or large unless the user asked for it."""


def _call(action: Any) -> Any:
    """Run a library call; an Apollo error becomes the tool's error text (one line, what to do)."""
    from mcp.server.mcpserver.exceptions import ToolError

    try:
        return action()
    except ApolloError as exc:
        raise ToolError(f"{type(exc).__name__}: {exc.line()}") from None


def _jsonable(value: Any) -> Any:
    """Library results as plain JSON (paths as strings, dataclasses, records and objects with to_dict)."""
    import dataclasses

    if hasattr(value, "to_dict"):
        return _jsonable(value.to_dict())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _jsonable(dataclasses.asdict(value))
    if isinstance(value, Record):  # the classifier's verdicts and the other slotted records
        return {name: _jsonable(getattr(value, name)) for name in field_names(type(value))}
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_jsonable(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value


def build_server(paths: Paths, config: Config, lang: str) -> Any:
    """The MCPServer with Apollo's seven tools, bound to one workspace / state dir / agent."""
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    server = MCPServer(name="apollo", title="Apollo context hygiene", instructions=INSTRUCTIONS,
                       version=__version__, log_level="WARNING")
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)
    _add_renal_tools(server, paths, config, lang, read_only)
    _add_autophagy_tools(server, paths, config, lang, read_only)
    return server


def _add_renal_tools(server: Any, paths: Paths, config: Config, lang: str, read_only: Any) -> None:
    """renal_check, renal_classify, renal_filter and renal_recall, in the order clients list them."""
    from mcp.types import ToolAnnotations

    def source_of(path: str | None, session: str | None) -> Any:
        from apollo.transcript.discovery import current_session

        if path:
            return Path(path).expanduser()
        return current_session(paths, session)

    @server.tool(annotations=read_only)
    def renal_check(path: str | None = None, session: str | None = None, format: str = "auto") -> dict[str, Any]:
        """Measure a transcript (default: the agent's current session): tokens, information density,
        repeated confirmations, active tasks and topics, whether filtering is needed and what it
        would save, plus the heartbeat line. Read-only."""
        from apollo.renal.check import check
        from apollo.renal.check_cache import heartbeat_line

        def body() -> dict[str, Any]:
            result = check(paths, config, source=source_of(path, session), fmt=format)
            return {**_jsonable(result.to_state()), "line": heartbeat_line(result, lang)}

        return _call(body)

    @server.tool(annotations=read_only)
    def renal_classify(path: str | None = None, session: str | None = None, format: str = "auto",
                       limit: int = 200) -> dict[str, Any]:
        """Classify every element of a transcript as decision, preference, task, question, process or
        noise, with the action renal would take (keep, compress, drop, confirm) and why. Returns the
        summary and the first `limit` verdicts. Read-only."""
        from apollo.renal.api import classify_path

        def body() -> dict[str, Any]:
            from apollo.transcript import SessionRef

            source = source_of(path, session)
            if isinstance(source, SessionRef) and not session:
                source = source.db  # a store alone means its most recent session: the current one
            result = classify_path(source, format, config)
            verdicts = _jsonable(result.verdicts)
            return {"summary": _jsonable(result.summary), "total": len(verdicts), "verdicts": verdicts[:max(limit, 0)]}

        return _call(body)

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
    def renal_filter(path: str | None = None, session: str | None = None, format: str = "auto",
                     keep_ratio: float | None = None, budget: int | None = None, mode: str = "compact",
                     dry_run: bool = False) -> dict[str, Any]:
        """Filter a transcript: keep decisions, preferences, tasks and open questions, concentrate
        repetition, drop noise. Non-destructive: the important content is snapshotted first and the
        original stays (mode "compact" appends a native compaction entry; "rewrite" writes a filtered
        copy). dry_run=true only reports."""
        from apollo.renal.filter import filter_path

        def body() -> dict[str, Any]:
            result = filter_path(source_of(path, session), format, config, keep_ratio=keep_ratio, budget=budget,
                                 mode=mode, dry_run=dry_run)
            return {"report": _jsonable(result.report), "output_path": _jsonable(result.output_path),
                    "snapshot_path": _jsonable(result.snapshot_path)}

        return _call(body)

    @server.tool(annotations=read_only)
    def renal_recall(query: str = "", id: str = "", session: str | None = None, limit: int = 5) -> dict[str, Any]:
        """Messages of this conversation that Apollo's context engine filtered out of the model's context
        (dropped as noise, evicted or cut at a compaction point), returned verbatim: by `id` (like m12) or by
        the words of `query` (all must occur). The session is the latest one unless named."""
        from apollo.integration.engine import recall_in_state

        return _call(lambda: recall_in_state(paths.state_dir, session, query, id, limit))


def _add_autophagy_tools(server: Any, paths: Paths, config: Config, lang: str, read_only: Any) -> None:
    """autophagy_status, autophagy_plan and autophagy_execute: plans are made here, deletion only on a
    confirmed plan id."""
    from mcp.types import ToolAnnotations

    @server.tool(annotations=read_only)
    def autophagy_status() -> dict[str, Any]:
        """What each autophagy tier (small, medium, large) would remove in this workspace, and what is
        protected. Read-only."""
        from apollo.autophagy import api

        return _call(lambda: _jsonable(api.status(paths, config)))

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
    def autophagy_plan(tier: str) -> dict[str, Any]:
        """Make a cleanup plan for tier "small", "medium" or "large": the exact items, sizes, risk and a
        plan id. Deletes nothing. Show it to the user; execute only what the user confirms."""
        from apollo.autophagy import api

        def body() -> dict[str, Any]:
            made = api.plan(paths, config, tier, actor=api.resolve_actor())
            public = made.to_public(lang)
            if not public["items"] and not public["suggested"]:
                return {**public, "plan_id": None, "next": "nothing to clean in this tier"}
            if tier == "large":
                from apollo.autophagy import human
                from apollo.autophagy.rules import load

                phrase = load(config).data.large.phrase
                said = human.words(phrase, made.plan_id)
                return {**public, "expires_at": made.expires_at, "confirm_words": said,
                        "next": f"show these items to the user; only the user can confirm: ask them to type "
                                f"\"{said}\" in their own message; after that message, call autophagy_execute with "
                                f"plan_id={made.plan_id!r} and confirm_phrase={phrase!r}"}
            return {**public, "expires_at": made.expires_at,
                    "next": f"show these items to the user; after they confirm, call autophagy_execute with "
                            f"plan_id={made.plan_id!r}"}

        return _call(body)

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False))
    def autophagy_execute(plan_id: str, selected: list[str] | None = None,
                          confirm_phrase: str | None = None) -> dict[str, Any]:
        """Execute a plan the user has confirmed (snapshot, delete, verify, log). Needs the plan id from
        autophagy_plan; `selected` limits a medium plan to the items the user chose; a large plan also
        needs confirm_phrase, and runs only when the user's own latest message carries the plan's
        confirm_words. Anything changed since the plan is skipped."""
        from apollo.autophagy import api

        return _call(lambda: _jsonable(api.execute(paths, config, plan_id, selected=selected, phrase=confirm_phrase,
                                                   actor=api.resolve_actor(), lang=lang)))


def serve(paths: Paths, config: Config, lang: str) -> None:
    """Run the server on stdin/stdout until the client closes it."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise UsageError("the MCP server needs the `mcp` package",
                         hint="pip install 'apollo-hygiene[mcp]'") from None
    build_server(paths, config, lang).run("stdio")
