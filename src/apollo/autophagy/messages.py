"""What autophagy tells the user about a path it leaves alone: every sentence written once.

Each message is an ``(en, zh)`` pair — English first, Chinese second, the one bilingual convention
of Apollo (``Unsafe(reason, reason_zh)``, a rule's ``reason`` / ``reason_zh``): the CLI shows the
user's language, the cleanup log is written in Chinese. A pair is passed on whole:
``Unsafe(*CHANGED, "changed")``, ``scanner._keep(parts, *recent(60))``. Plain data, so the modules
the heartbeat loads may import it.
"""

from __future__ import annotations

# -- since the plan: what a run finds when it re-checks a planned item right before it goes
CHANGED = ("changed since the plan", "制定计划后已改变")
GONE = ("gone since the plan", "制定计划后已不存在")
GROWN_AT_END = ("written to at the end since the plan", "制定计划后末尾有新写入")
NO_LONGER_QUALIFIES = ("no longer qualifies under the current rules", "按当前规则已不符合清理条件")
NOT_PICKED_NOW = ("its byte ranges are not entries the rules pick now", "其字节范围不是规则当前选中的条目")
MEMBER_CHANGED = ("changed, replaced or protected since the plan", "制定计划后已改变、被替换或受保护")
NOT_LARGE_CONTEXT = ("not a file of the agent's context that the large tier removes",
                     "不是大自噬会清理的代理上下文文件")
OTHER_WORKSPACE = ("the workspace is not the folder the plan was made for", "工作区不是制定计划时的那个目录")

# -- while removing or rewriting (apollo.autophagy.remove)
FOLDER_NOW = ("is a folder now", "现在是目录")
STILL_THERE = ("still there after removal", "删除后仍然存在")
NOT_EMPTY = ("not empty: it holds files that were kept or are new since the plan",
             "非空：里面有保留的文件或计划之后新增的文件")
GROWN_WHILE_REWRITTEN = ("written to at the end while it was being rewritten", "改写期间末尾有新写入")
REPLACED_SINCE_READ = ("replaced by another file since it was read", "读取后已被另一个文件替换")
CHANGED_WHILE_REWRITTEN = ("changed while it was being rewritten", "改写期间发生了变化")

# -- restore (apollo.autophagy.snapshot)
EXISTS = ("exists; never overwritten", "已存在，绝不覆盖")

# -- what the scan keeps or does not enter
MOUNT_POINT = ("mount point; never crossed", "挂载点，绝不跨越")
TOO_DEEP = ("too deep; not entered", "层级过深，未进入")
LINK_TO_PROTECTED = ("link to a protected path", "指向受保护路径的链接")


def recent(minutes: float) -> tuple[str, str]:
    """A file modified too recently to be touched (``autophagy.recent_minutes``)."""
    return f"modified in the last {minutes:g} minutes", f"最近 {minutes:g} 分钟内修改过"


def symlink(name: str) -> tuple[str, str]:
    return f"{name} is a symlink; never followed", f"{name} 是符号链接，绝不跟随"


def os_error(exc: OSError) -> tuple[str, str]:
    """A system error as the system words it (the same text in both languages)."""
    text = exc.strerror or str(exc)
    return text, text
