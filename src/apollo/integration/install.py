"""``apollo install``: put Apollo where the agent will use it, and take it away again exactly.

OpenClaw: the two skills and the two wrapper scripts at the seeds' paths, plus a marked block in
HEARTBEAT.md. Claude Code: a PreCompact hook in settings.json and the /renal command. One engine
for both: every item is recorded with its sha256 in a manifest (``.apollo/install-manifest.json``
below the target), so a second run changes nothing, ``--force`` refreshes only what Apollo wrote,
a file Apollo did not write is never overwritten, and ``--uninstall`` removes exactly what was
added — through :mod:`apollo.autophagy.remove`, the one module that deletes.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import msgspec

from apollo import __version__, rulefile
from apollo.autophagy import fs
from apollo.errors import InputError, Refused

MANIFEST = ".apollo/install-manifest.json"


class _FileRecord(msgspec.Struct, forbid_unknown_fields=True):
    sha256: str
    adopted: bool = False


class _BlockRecord(msgspec.Struct, forbid_unknown_fields=True):
    sha256: str
    created_file: bool
    separator: str = ""


class _HookRecord(msgspec.Struct, forbid_unknown_fields=True):
    command: str
    created_file: bool


class _OriginalRecord(msgspec.Struct, forbid_unknown_fields=True):
    backup: str | None
    sha256: str = ""


class _ConfigRecord(msgspec.Struct, forbid_unknown_fields=True):
    sha256: str
    backup: str | None
    settings: list[tuple[str, Any]]


class _Manifest(msgspec.Struct, forbid_unknown_fields=True):
    """What ``.apollo/install-manifest.json`` holds (format 1): every item Apollo added, with its digest."""

    format: Literal[1]
    files: dict[str, _FileRecord] = {}
    blocks: dict[str, _BlockRecord] = {}
    hooks: dict[str, _HookRecord] = {}
    configs: dict[str, _ConfigRecord] = {}
    originals: dict[str, _OriginalRecord] = {}
    dirs: list[str] = []
    apollo: str = ""
    target: str = ""
    updated_at: str = ""
BACKUP_DIR = ".apollo/install-backup"


def block_markers(name: str) -> tuple[str, str]:
    """The lines around a block Apollo owns in a file of the user's (found again to update or remove it)."""
    return (f"<!-- apollo:begin {name} (managed by `apollo install`; `apollo install --uninstall` removes it) -->",
            f"<!-- apollo:end {name} -->")


HEARTBEAT_BEGIN, HEARTBEAT_END = block_markers("heartbeat")
BLOCK_SUFFIX = ".block.md"


# --------------------------------------------------------------------------- what gets installed

@dataclass(frozen=True)
class FileItem:
    """A whole file Apollo owns."""

    rel: str
    content: bytes
    executable: bool = False


@dataclass(frozen=True)
class BlockItem:
    """A marked block Apollo owns inside a file the user owns (HEARTBEAT.md)."""

    rel: str
    begin: str
    end: str
    body: str

    @property
    def text(self) -> str:
        return f"{self.begin}\n{self.body.rstrip()}\n{self.end}\n"


@dataclass(frozen=True)
class HookItem:
    """One command hook Apollo owns inside a JSON settings file the user owns (Claude Code)."""

    rel: str
    event: str
    matcher: str
    command: str
    timeout: int = 60
    status: str = "Apollo: saving the important context before compaction"

    @property
    def entry(self) -> dict[str, Any]:
        return {"type": "command", "command": self.command, "timeout": self.timeout, "statusMessage": self.status}

    def owns(self, command: Any) -> bool:
        """Apollo's hook whatever path the install wrote for ``apollo`` (a venv may have moved)."""
        import shlex

        try:
            words = shlex.split(command) if isinstance(command, str) else []
        except ValueError:
            return False
        mine = shlex.split(self.command)
        return len(words) == len(mine) and Path(words[0]).name == Path(mine[0]).name and words[1:] == mine[1:]


@dataclass(frozen=True)
class ConfigItem:
    """Keys Apollo sets in a JSON config the user owns (``openclaw.json``): the original bytes are
    kept so that ``--uninstall`` puts back exactly what was there."""

    rel: str
    #: (dotted path, value): a list value is merged into the list there, anything else replaces it
    settings: tuple[tuple[str, Any], ...]


Item = FileItem | BlockItem | HookItem | ConfigItem


@dataclass(frozen=True)
class Target:
    """Where to install and what: an OpenClaw workspace or a Claude Code config folder."""

    kind: str
    root: Path
    items: tuple[Item, ...]


def _template(*parts: str) -> bytes:
    """A template with ``@APOLLO@`` (the command to run Apollo: ``apollo``, or this program's
    absolute path when that is not what PATH finds) and ``@APOLLO_ABS@`` (always the absolute path:
    the wrappers' last fallback, so a venv install works without activating the venv)."""
    data = resources.files("apollo.integration").joinpath("templates", *parts).read_bytes()
    if b"@APOLLO" in data:
        import shlex

        data = data.replace(b"@APOLLO_ABS@", shlex.quote(apollo_path()).encode())
        data = data.replace(b"@APOLLO@", _apollo_command().encode())
    return data


def apollo_path() -> str:
    """The absolute path of the ``apollo`` program running now (its venv's, when it has one)."""
    import shutil
    import sys

    here = Path(sys.executable).parent / "apollo"
    if here.exists():
        return str(here.absolute())
    found = shutil.which("apollo")
    return str(Path(found).absolute()) if found else str(here.absolute())


def openclaw_target(workspace: Path) -> Target:
    return Target("openclaw", workspace, tuple(_template_items("openclaw")))


def _template_items(kind: str) -> list[Item]:
    """What ``templates/<kind>/`` holds, each at the same path below the target: a file Apollo
    owns (a ``.sh`` one executable), or for ``NAME.block.md`` a marked block in the user's own
    ``NAME.md`` (HEARTBEAT.md). Files in path order, blocks after them."""
    base = resources.files("apollo.integration").joinpath("templates", kind)
    rels: list[str] = []
    pending = [(base, "")]
    while pending:
        node, prefix = pending.pop()
        for child in node.iterdir():
            if child.is_dir():
                pending.append((child, f"{prefix}{child.name}/"))
            else:
                rels.append(prefix + child.name)
    files: list[Item] = [FileItem(rel, _template(kind, *rel.split("/")), rel.endswith(".sh"))
                         for rel in sorted(rels) if not rel.endswith(BLOCK_SUFFIX)]
    blocks: list[Item] = [BlockItem(rel.removesuffix(BLOCK_SUFFIX) + ".md",
                                    *block_markers(rel.removesuffix(BLOCK_SUFFIX).rsplit("/", 1)[-1].lower()),
                                    _template(kind, *rel.split("/")).decode("utf-8"))
                          for rel in sorted(rels) if rel.endswith(BLOCK_SUFFIX)]
    return files + blocks


def claude_config_dir() -> Path:
    """Claude Code's user folder: ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``."""
    override = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(override).expanduser() if override else Path.home() / ".claude"


def _apollo_command() -> str:
    """``apollo`` when that is this very program on PATH, else this program's absolute path:
    Claude Code runs hooks with the user's PATH, where a virtualenv's apollo may be missing."""
    import shlex
    import shutil

    here = Path(apollo_path())
    found = shutil.which("apollo")
    if found and (not here.exists() or Path(found).resolve() == here.resolve()):
        return "apollo"
    return shlex.quote(str(here)) if here.exists() else "apollo"


def claude_code_target(project: Path | None) -> Target:
    """``<project>/.claude/`` with --project, else the user's ``~/.claude/`` (every project)."""
    root = (project.expanduser().absolute() / ".claude") if project is not None else claude_config_dir()
    items: list[Item] = [
        HookItem("settings.json", "PreCompact", "", f"{_apollo_command()} hook precompact"),
        HookItem("settings.json", "SessionStart", "compact", f"{_apollo_command()} hook sessionstart", 30,
                 "Apollo: restoring the decisions and rules saved before compaction"),
        *_template_items("claude-code"),
    ]
    return Target("claude-code", root, tuple(items))


ENGINE_ID = "apollo-renal"


def engine_plugin_dir() -> Path:
    """The OpenClaw plugin shipped inside the package (loaded in place: nothing is copied)."""
    return Path(str(resources.files("apollo.integration").joinpath("openclaw-engine"))).absolute()


def context_engine_target(state_dir: Path) -> Target:
    """``openclaw.json`` in the OpenClaw state dir: load Apollo's plugin, configure it with this
    program's absolute path, select it as the context engine."""
    config = {"command": [apollo_path(), "engine", "serve"], "stateDir": str(state_dir)}
    item = ConfigItem("openclaw.json", (("plugins.load.paths", [str(engine_plugin_dir())]),
                                        (f"plugins.entries.{ENGINE_ID}", {"enabled": True, "config": config}),
                                        ("plugins.slots.contextEngine", ENGINE_ID)))
    return Target("openclaw-context-engine", state_dir, (item,))


# --------------------------------------------------------------------------- the report

@dataclass
class Step:
    rel: str
    action: str
    detail: str = ""
    problem: bool = False


#: each action in the report, as an (en, zh) pair (English first: the one convention, messages.py)
_WORDS = {
    "created": ("created", "已创建"), "unchanged": ("up to date", "已是最新"), "updated": ("updated", "已更新"),
    "outdated": ("newer version available (--force refreshes it)", "有新版本（--force 更新）"),
    "kept-modified": ("changed by you, kept", "你改过，保留"), "replaced": ("replaced", "已替换"),
    "adopted": ("identical to Apollo's, adopted", "与 Apollo 的相同，已接管"),
    "conflict": ("exists and was not written by Apollo; left alone", "已存在且不是 Apollo 写的，未动"),
    "removed": ("removed", "已删除"), "block-added": ("marked block added", "已加入标记块"),
    "block-removed": ("marked block removed", "已移除标记块"), "hook-added": ("hook added", "已加入钩子"),
    "hook-removed": ("hook removed", "已移除钩子"), "gone": ("already gone", "已不存在"),
    "unreadable": ("cannot be parsed; left alone", "无法解析，未动"),
    "kept-not-empty": ("still holds other files; kept", "还有其他文件，保留"),
    "nothing": ("nothing installed here", "没有安装记录"),
    "configured": ("configured", "已配置"), "restored": ("restored byte for byte", "已恢复原样"),
    "settings-removed": ("Apollo's settings removed", "已移除 Apollo 的设置"),
}


@dataclass
class Report:
    kind: str
    root: Path
    operation: str
    steps: list[Step] = field(default_factory=list)

    def add(self, rel: str, action: str, detail: str = "", *, problem: bool = False) -> None:
        self.steps.append(Step(rel, action, detail, problem))

    @property
    def problems(self) -> list[Step]:
        return [s for s in self.steps if s.problem]

    def to_dict(self) -> dict[str, Any]:
        return {"target": self.kind, "root": str(self.root), "operation": self.operation, "ok": not self.problems,
                "steps": [{"path": s.rel, "action": s.action, "detail": s.detail, "problem": s.problem}
                          for s in self.steps]}

    def lines(self, lang: str) -> list[str]:
        zh = lang == "zh"
        title = {"install": ("install", "安装"), "uninstall": ("uninstall", "卸载")}[self.operation]
        out = [f"apollo {title[0]} → {self.kind}: {self.root}" if not zh else
               f"Apollo {title[1]} → {self.kind}：{self.root}"]
        for step in self.steps:
            mark = "✗" if step.problem else "✓"
            word = _WORDS[step.action][1 if zh else 0]
            out.append(f"  {mark} {step.rel}: {word}{' — ' + step.detail if step.detail else ''}")
        return out

    def raise_for_problems(self) -> None:
        if self.problems:
            first = self.problems[0]
            raise Refused(f"{len(self.problems)} item(s) left alone", where=str(self.root / first.rel),
                          hint="move the file away (or fix it) and run the command again")


# --------------------------------------------------------------------------- manifest and files

class _Tree:
    """Safe reads and writes below the target root: never through a symlink, never off the device.

    New files are created here (``O_EXCL``, never over anything); replacing and removing go
    through :mod:`apollo.autophagy.remove`, each checked against the bytes this run read.
    """

    def __init__(self, root: fs.Root):
        self.root = root
        self.created_dirs: list[str] = []

    def read(self, rel: str) -> bytes | None:
        parts = fs.split_relative(rel)
        try:
            parent = self.root.open_dir(parts[:-1])
        except fs.Unsafe as exc:
            if exc.code == "gone":
                return None
            raise
        try:
            try:
                fd = fs.open_file(parent, parts[-1])
            except FileNotFoundError:
                return None
            try:
                return fs.read_fd(fd)
            finally:
                os.close(fd)
        finally:
            os.close(parent)

    def mode(self, rel: str) -> int | None:
        try:
            return stat.S_IMODE(self.root.lstat(fs.split_relative(rel)).st_mode)
        except fs.Unsafe:
            return None

    def ensure_dir(self, rel: str) -> None:
        os.close(self._ensure_dirs(fs.split_relative(rel)))

    def _ensure_dirs(self, parts: tuple[str, ...]) -> int:
        fd = os.dup(self.root.fd)
        try:
            for depth, part in enumerate(parts, 1):
                try:
                    child = self.root.open_dir(parts[:depth])
                except fs.Unsafe as exc:
                    if exc.code != "gone":
                        raise
                    os.mkdir(part, 0o755, dir_fd=fd)
                    self.created_dirs.append("/".join(parts[:depth]))
                    child = self.root.open_dir(parts[:depth])
                os.close(fd)
                fd = child
            return fd
        except BaseException:
            os.close(fd)
            raise

    def create(self, rel: str, data: bytes, *, executable: bool = False) -> None:
        """A new file (it must not exist), its folders created and recorded."""
        parts = fs.split_relative(rel)
        mode = 0o755 if executable else 0o644
        parent = self._ensure_dirs(parts[:-1])
        try:
            fs.write_new(parent, parts[-1], data, mode=mode)
            _chmod(parent, parts[-1], mode)  # the umask must not take the wrapper's executable bit
            fs.fsync_dir(parent)
        finally:
            os.close(parent)

    def replace(self, rel: str, data: bytes, *, based_on: bytes) -> None:
        """Swap in ``data`` atomically, only if the file still holds ``based_on`` (else Unsafe)."""
        from apollo.autophagy import remove

        def build(old: bytes, _st: os.stat_result) -> bytes:
            if old != based_on:
                raise fs.Unsafe("changed while Apollo was installing", "安装期间被修改", "changed")
            return data

        remove.rewrite(self.root, fs.split_relative(rel), build, carry_appends=False)

    def remove(self, rel: str, *, based_on: bytes) -> None:
        """Unlink ``rel`` if it still holds ``based_on`` and is the same file (identity re-checked)."""
        from apollo.autophagy import remove

        parts = fs.split_relative(rel)
        parent = self.root.open_dir(parts[:-1])
        try:
            fd = fs.open_file(parent, parts[-1])
            try:
                st = os.fstat(fd)
                if fs.read_fd(fd) != based_on:
                    raise fs.Unsafe("changed while Apollo was uninstalling", "卸载期间被修改", "changed")
            finally:
                os.close(fd)
        finally:
            os.close(parent)
        remove.unlink_file(self.root, parts, fs.StatFingerprint.of(st))

    def remove_dir(self, rel: str) -> bool:
        """Remove an empty folder Apollo created; False when it now holds something (kept)."""
        from apollo.autophagy import remove

        parts = fs.split_relative(rel)
        try:
            st = self.root.lstat(parts)
            remove.remove_empty_dir(self.root, parts, fs.StatFingerprint.of(st))
        except fs.Unsafe as exc:
            if exc.code in ("gone",):
                return True
            if exc.code == "changed":
                return False
            raise
        return True


def _chmod(dir_fd: int, name: str, mode: int) -> None:
    fd = fs.open_file(dir_fd, name)
    try:
        os.fchmod(fd, mode)
    finally:
        os.close(fd)


@contextmanager
def _open_root(target: Target, *, create: bool) -> Iterator[fs.Root]:
    path = target.root
    if not path.exists():
        if not create:
            raise InputError("does not exist", where=str(path))
        if target.kind == "openclaw":
            raise InputError("the workspace does not exist", where=str(path),
                             hint="create it (openclaw setup) or pass --workspace")
        path.mkdir(parents=True, exist_ok=True)
    try:
        root = fs.Root(path, label=target.kind)
    except fs.Unsafe as exc:
        raise InputError(exc.reason, where=str(path)) from None
    try:
        import fcntl

        fcntl.flock(root.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        root.close()
        raise Refused("another `apollo install` is running here", where=str(path), hint="wait and retry") from None
    try:
        yield root
    finally:
        root.close()


def _load_manifest(tree: _Tree, root: Path) -> dict[str, Any]:
    """The manifest as plain tables, checked against :class:`_Manifest` first: an entry that lacks
    its digest must stop an uninstall before it removes anything, not halfway through."""
    raw = tree.read(MANIFEST)
    if raw is None:
        return {"format": 1, "files": {}, "blocks": {}, "hooks": {}, "configs": {}, "originals": {}, "dirs": []}
    rulefile.decode_json(raw, _Manifest, str(root / MANIFEST), what="install manifest",
                         hint="Apollo will not guess what it installed; restore the file or remove Apollo's "
                              "files by hand")
    data: dict[str, Any] = json.loads(raw)
    for key in ("files", "blocks", "hooks", "configs", "originals"):
        data.setdefault(key, {})
    data.setdefault("dirs", [])
    return data


def _save_manifest(tree: _Tree, manifest: dict[str, Any], target: Target) -> None:
    """Written only when what it records changed, so a second install touches nothing at all."""
    from apollo.clock import now

    old = tree.read(MANIFEST)
    previous = json.loads(old) if old is not None else {}
    manifest.update({"apollo": __version__, "target": target.kind})
    if {k: v for k, v in previous.items() if k != "updated_at"} == \
            {k: v for k, v in manifest.items() if k != "updated_at"}:
        return
    manifest["updated_at"] = now().isoformat()
    data = (json.dumps(manifest, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode("utf-8")
    if old is None:
        tree.create(MANIFEST, data)
    else:
        tree.replace(MANIFEST, data, based_on=old)


def _backup(tree: _Tree, rel: str, data: bytes) -> str:
    """Keep the user's version of a file before --force replaces it (nothing lost)."""
    from apollo.clock import stamp

    base = f"{BACKUP_DIR}/{rel}.{stamp()}"
    saved, number = base, 2
    while tree.read(saved) is not None:  # two backups in one second
        saved, number = f"{base}-{number}", number + 1
    tree.create(saved, data)
    return saved


# --------------------------------------------------------------------------- marked blocks

def _find_block(text: str, item: BlockItem) -> tuple[int, int] | None:
    """(start, end) of the marked block, end past its newline; None when absent; error when broken."""
    start = text.find(item.begin)
    count_begin, count_end = text.count(item.begin), text.count(item.end)
    if start < 0 and count_end == 0:
        return None
    end = text.find(item.end, max(start, 0))
    if count_begin != 1 or count_end != 1 or start < 0 or end < 0:
        raise ValueError("the Apollo markers are incomplete or repeated")
    end += len(item.end)
    if text[end:end + 1] == "\n":
        end += 1
    return start, end


def _separator(text: str) -> str:
    """What goes between the user's text and an appended block: one blank line."""
    if not text or text.endswith("\n\n"):
        return ""
    return "\n" if text.endswith("\n") else "\n\n"


def _without_block(text: str, span: tuple[int, int], separator: str | None) -> str:
    """The text with the block and the blank line that set it apart taken out: exactly the
    user's text when the block is still where it was appended."""
    before, after = text[:span[0]], text[span[1]:]
    if separator is not None and not after and before.endswith(separator):
        return before[:len(before) - len(separator)]
    if not before.strip():
        return after.lstrip("\n")
    if not after.strip():
        return before.rstrip("\n") + "\n"
    return before.rstrip("\n") + "\n\n" + after.lstrip("\n")


# --------------------------------------------------------------------------- settings.json hooks

def _hook_present(settings: dict[str, Any], item: HookItem) -> bool:
    groups = settings.get("hooks", {}).get(item.event, [])
    return any(item.owns(h.get("command")) for g in groups if isinstance(g, dict)
               for h in g.get("hooks", []) if isinstance(h, dict))


def _add_hook(settings: dict[str, Any], item: HookItem) -> None:
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict) or not isinstance(hooks.setdefault(item.event, []), list):
        raise ValueError(f"'hooks.{item.event}' is not a list")
    hooks[item.event].append({"matcher": item.matcher, "hooks": [item.entry]})


def _drop_hook(settings: dict[str, Any], item: HookItem) -> None:
    hooks = settings.get("hooks", {})
    kept = []
    for group in hooks.get(item.event, []):
        if isinstance(group, dict) and isinstance(group.get("hooks"), list):
            group["hooks"] = [h for h in group["hooks"] if not (isinstance(h, dict) and item.owns(h.get("command")))]
            if not group["hooks"]:
                continue
        kept.append(group)
    if kept:
        hooks[item.event] = kept
    else:
        hooks.pop(item.event, None)
    if not hooks:
        settings.pop("hooks", None)


def _json_bytes(data: dict[str, Any]) -> bytes:
    return (json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


# --------------------------------------------------------------------------- install

def install(target: Target, *, force: bool = False) -> Report:
    """Install every item of ``target``; idempotent; ``force`` refreshes only Apollo's own items."""
    report = Report(target.kind, target.root, "install")
    with _open_root(target, create=True) as root, _refusing_unsafe(target):
        tree = _Tree(root)
        manifest = _load_manifest(tree, target.root)
        tree.ensure_dir(str(Path(MANIFEST).parent))  # recorded like every folder Apollo creates
        try:
            for item in target.items:
                if isinstance(item, FileItem):
                    _install_file(tree, manifest, item, force, report)
                elif isinstance(item, BlockItem):
                    _install_block(tree, manifest, item, force, report)
                elif isinstance(item, ConfigItem):
                    _install_config(tree, manifest, item, report)
                else:
                    _install_hook(tree, manifest, item, report)
        finally:  # what was written before a failure is recorded, so --uninstall still finds it
            manifest["dirs"] = sorted(set(manifest["dirs"]) | set(tree.created_dirs))
            _save_manifest(tree, manifest, target)
    return report


@contextmanager
def _refusing_unsafe(target: Target) -> Iterator[None]:
    """A symlink or a file changed under our feet is a refusal with the CLI's exit code 4."""
    try:
        yield
    except fs.Unsafe as exc:
        raise Refused(exc.reason, where=str(target.root),
                      hint="Apollo never writes through a symlink or over a file that changed meanwhile") from None


def _install_file(tree: _Tree, manifest: dict[str, Any], item: FileItem, force: bool, report: Report) -> None:
    wanted = fs.sha256_bytes(item.content)
    current = tree.read(item.rel)
    recorded = manifest["files"].get(item.rel)
    if current is None:
        tree.create(item.rel, item.content, executable=item.executable)
        manifest["files"][item.rel] = {"sha256": wanted}
        report.add(item.rel, "created")
        return
    have = fs.sha256_bytes(current)
    if recorded is None:
        if have == wanted:
            manifest["files"][item.rel] = {"sha256": wanted, "adopted": True}
            report.add(item.rel, "adopted")
        else:
            report.add(item.rel, "conflict", problem=True)
        return
    if have == wanted:
        manifest["files"][item.rel] = {**recorded, "sha256": wanted}
        _fix_mode(tree, item)
        report.add(item.rel, "unchanged")
    elif have == recorded["sha256"]:
        if force:
            tree.replace(item.rel, item.content, based_on=current)
            manifest["files"][item.rel] = {**recorded, "sha256": wanted}
            report.add(item.rel, "updated")
        else:
            report.add(item.rel, "outdated")
    elif force:
        saved = _backup(tree, item.rel, current)
        tree.replace(item.rel, item.content, based_on=current)
        manifest["files"][item.rel] = {**recorded, "sha256": wanted}
        report.add(item.rel, "replaced", f"your version: {saved}")
    else:
        report.add(item.rel, "kept-modified", "--force replaces it and keeps your version in " + BACKUP_DIR)


def _fix_mode(tree: _Tree, item: FileItem) -> None:
    """A wrapper that lost its executable bit is still Apollo's file: give it back."""
    mode = tree.mode(item.rel)
    if item.executable and mode is not None and not mode & 0o100:
        parts = fs.split_relative(item.rel)
        parent = tree.root.open_dir(parts[:-1])
        try:
            _chmod(parent, parts[-1], mode | 0o111)
        finally:
            os.close(parent)


def _install_block(tree: _Tree, manifest: dict[str, Any], item: BlockItem, force: bool, report: Report) -> None:
    raw = tree.read(item.rel)
    recorded = manifest["blocks"].get(item.rel)
    wanted = fs.sha256_bytes(item.text.encode())
    if raw is None:
        tree.create(item.rel, item.text.encode())
        manifest["blocks"][item.rel] = {"sha256": wanted, "created_file": True}
        report.add(item.rel, "created")
        return
    try:
        text = raw.decode("utf-8")
        span = _find_block(text, item)
    except (UnicodeDecodeError, ValueError) as exc:
        report.add(item.rel, "unreadable", str(exc), problem=True)
        return
    if span is None:
        separator = _separator(text)
        tree.replace(item.rel, (text + separator + item.text).encode(), based_on=raw)
        manifest["blocks"][item.rel] = {"sha256": wanted, "created_file": False, "separator": separator}
        report.add(item.rel, "block-added")
        return
    have = fs.sha256_bytes(text[span[0]:span[1]].encode())
    if not text[span[0]:span[1]].endswith("\n"):
        have = fs.sha256_bytes((text[span[0]:span[1]] + "\n").encode())
    if have == wanted:
        manifest["blocks"][item.rel] = recorded or {"sha256": wanted, "created_file": False}
        report.add(item.rel, "unchanged")
        return
    ours_untouched = recorded is not None and have == recorded["sha256"]
    if not force:
        report.add(item.rel, "outdated" if ours_untouched else "kept-modified",
                   "" if ours_untouched else "--force replaces the marked block")
        return
    detail = "" if ours_untouched else f"your version: {_backup(tree, item.rel, raw)}"
    updated = text[:span[0]] + item.text + text[span[1]:]
    tree.replace(item.rel, updated.encode(), based_on=raw)
    manifest["blocks"][item.rel] = {"sha256": wanted, "created_file": bool(recorded and recorded["created_file"])}
    report.add(item.rel, "updated" if ours_untouched else "replaced", detail)


def _read_settings(tree: _Tree, rel: str) -> tuple[dict[str, Any] | None, bytes | None]:
    """(settings, the bytes read or None when absent); None settings when not a JSON object."""
    raw = tree.read(rel)
    if raw is None:
        return {}, None
    try:
        data = json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except (UnicodeDecodeError, ValueError):
        return None, raw
    return (data if isinstance(data, dict) else None), raw


def _install_hook(tree: _Tree, manifest: dict[str, Any], item: HookItem, report: Report) -> None:
    settings, raw = _read_settings(tree, item.rel)
    if settings is None:
        report.add(item.rel, "unreadable", "not a JSON object", problem=True)
        return
    key = f"{item.rel}#{item.event}"
    if _hook_present(settings, item):
        manifest["hooks"].setdefault(key, {"command": item.command, "created_file": False})
        report.add(item.rel, "unchanged", f"{item.event}: {item.command}")
        return
    try:
        _add_hook(settings, item)
    except ValueError as exc:
        report.add(item.rel, "unreadable", str(exc), problem=True)
        return
    data = _json_bytes(settings)
    original = manifest["originals"].get(item.rel)
    if original is None:  # the bytes before Apollo's first hook: --uninstall puts them back
        original = manifest["originals"][item.rel] = {"backup": _backup(tree, item.rel, raw) if raw is not None else None}
    if raw is None:
        tree.create(item.rel, data)
    else:
        tree.replace(item.rel, data, based_on=raw)
    original["sha256"] = fs.sha256_bytes(data)
    manifest["hooks"][key] = {"command": item.command, "created_file": raw is None}
    report.add(item.rel, "hook-added", f"{item.event}: {item.command}")


# --------------------------------------------------------------------------- uninstall

def uninstall(target: Target) -> Report:
    """Remove exactly what the manifest says Apollo added; anything the user changed stays."""
    report = Report(target.kind, target.root, "uninstall")
    if not target.root.exists():
        report.add(".", "nothing")
        return report
    with _open_root(target, create=False) as root, _refusing_unsafe(target):
        tree = _Tree(root)
        manifest_bytes = tree.read(MANIFEST)
        if manifest_bytes is None:
            report.add(MANIFEST, "nothing")
            return report
        manifest = _load_manifest(tree, target.root)
        by_rel = {item.rel: item for item in target.items}
        for rel, entry in sorted(manifest["files"].items()):
            current = tree.read(rel)
            item = by_rel.get(rel)
            if current is None:
                report.add(rel, "gone")
            elif fs.sha256_bytes(current) in {entry["sha256"], fs.sha256_bytes(item.content) if isinstance(item, FileItem) else ""}:
                tree.remove(rel, based_on=current)
                report.add(rel, "removed")
            else:
                report.add(rel, "kept-modified", "changed since install; not removed")
        for rel, entry in sorted(manifest["blocks"].items()):
            item = by_rel.get(rel)
            _uninstall_block(tree, rel, entry, item if isinstance(item, BlockItem) else None, report)
        restored = {rel for rel, entry in sorted(manifest["originals"].items())
                    if _restore_original(tree, rel, entry, report)}
        for key, entry in sorted(manifest["hooks"].items()):
            rel, _, event = key.partition("#")
            if rel not in restored:
                _uninstall_hook(tree, rel, HookItem(rel, event, "", entry["command"]), entry, report)
        for rel, entry in sorted(manifest["configs"].items()):
            _uninstall_config(tree, rel, entry, report)
        tree.remove(MANIFEST, based_on=manifest_bytes)
        for rel in sorted(manifest["dirs"], key=lambda d: (d.count("/"), d), reverse=True):
            if not tree.remove_dir(rel):
                report.add(rel + "/", "kept-not-empty")
    return report


def _uninstall_block(tree: _Tree, rel: str, entry: dict[str, Any], item: BlockItem | None,
                     report: Report) -> None:
    raw = tree.read(rel)
    if raw is None or item is None:
        report.add(rel, "gone")
        return
    try:
        text = raw.decode("utf-8")
        span = _find_block(text, item)
    except (UnicodeDecodeError, ValueError) as exc:
        report.add(rel, "unreadable", str(exc), problem=True)
        return
    if span is None:
        report.add(rel, "gone")
        return
    block = text[span[0]:span[1]]
    if fs.sha256_bytes((block if block.endswith("\n") else block + "\n").encode()) not in {entry["sha256"],
                                                                                 fs.sha256_bytes(item.text.encode())}:
        report.add(rel, "kept-modified", "the marked block was changed; not removed")
        return
    remaining = _without_block(text, span, entry.get("separator"))
    if entry.get("created_file") and not remaining.strip():
        tree.remove(rel, based_on=raw)
        report.add(rel, "removed")
    else:
        tree.replace(rel, remaining.encode(), based_on=raw)
        report.add(rel, "block-removed")


def _restore_original(tree: _Tree, rel: str, entry: dict[str, Any], report: Report) -> bool:
    """The file's bytes from before the install, when it is still exactly as Apollo left it
    (True); else False, and the hooks are taken out one by one. Apollo's copy goes either way."""
    raw = tree.read(rel)
    backup = entry.get("backup")
    original = tree.read(backup) if backup else None
    done = False
    if raw is not None and fs.sha256_bytes(raw) == entry.get("sha256"):
        if backup is None:
            tree.remove(rel, based_on=raw)
            report.add(rel, "removed")
            done = True
        elif original is not None:
            tree.replace(rel, original, based_on=raw)
            report.add(rel, "restored")
            done = True
    if backup and original is not None:
        tree.remove(backup, based_on=original)
    return done


def _uninstall_hook(tree: _Tree, rel: str, item: HookItem, entry: dict[str, Any], report: Report) -> None:
    settings, raw = _read_settings(tree, rel)
    if settings is None:
        report.add(rel, "unreadable", "not a JSON object", problem=True)
        return
    if raw is None or not _hook_present(settings, item):
        report.add(rel, "gone")
        return
    _drop_hook(settings, item)
    if entry.get("created_file") and not settings:
        tree.remove(rel, based_on=raw)
        report.add(rel, "removed")
    else:
        tree.replace(rel, _json_bytes(settings), based_on=raw)
        report.add(rel, "hook-removed", f"{item.event}: {item.command}")


# --------------------------------------------------------------------------- JSON config keys

def _with_settings(data: dict[str, Any], item: ConfigItem) -> dict[str, Any]:
    """A copy of ``data`` with the item's keys set (ValueError when a key's parent is not an object)."""
    out = json.loads(json.dumps(data))
    for dotted, value in item.settings:
        *parents, last = dotted.split(".")
        node = out
        for name in parents:
            node = node.setdefault(name, {})
            if not isinstance(node, dict):
                raise ValueError(f"'{dotted}' sits under a value that is not an object")
        if isinstance(value, list):
            present = node.setdefault(last, [])
            if not isinstance(present, list):
                raise ValueError(f"'{dotted}' is not a list")
            present.extend(v for v in value if v not in present)
        else:
            node[last] = value
    return out


def _without_settings(data: dict[str, Any], item_settings: list[list[Any]]) -> dict[str, Any]:
    """A copy of ``data`` without the values Apollo set (the rest of the file as the user has it)."""
    out = json.loads(json.dumps(data))
    for dotted, value in item_settings:
        *parents, last = dotted.split(".")
        node: Any = out
        for name in parents:
            node = node.get(name) if isinstance(node, dict) else None
        if not isinstance(node, dict) or last not in node:
            continue
        if isinstance(value, list) and isinstance(node[last], list):
            node[last] = [v for v in node[last] if v not in value]
        elif node[last] == value:
            del node[last]
    return out


def _install_config(tree: _Tree, manifest: dict[str, Any], item: ConfigItem, report: Report) -> None:
    """Set the item's keys; the file is never rewritten when it is not plain JSON (OpenClaw also
    reads JSON5 with comments, which a rewrite would lose)."""
    raw = tree.read(item.rel)
    try:
        current = json.loads(raw.decode("utf-8")) if raw is not None and raw.strip() else {}
        if not isinstance(current, dict):
            raise ValueError("not a JSON object")
        wanted = _with_settings(current, item)
    except (UnicodeDecodeError, ValueError) as exc:
        commands = "; ".join(f"openclaw config set {k} '{json.dumps(v)}'" for k, v in item.settings)
        report.add(item.rel, "unreadable", f"{exc}; set these yourself: {commands}", problem=True)
        return
    summary = ", ".join(k for k, _ in item.settings)
    if wanted == current:
        report.add(item.rel, "unchanged", summary)
        return
    data = _json_bytes(wanted)
    backup = None
    if raw is None:
        tree.create(item.rel, data)
    else:
        backup = _backup(tree, item.rel, raw)
        tree.replace(item.rel, data, based_on=raw)
    manifest["configs"][item.rel] = {"sha256": fs.sha256_bytes(data), "backup": backup,
                                     "settings": [[k, v] for k, v in item.settings]}
    report.add(item.rel, "configured", summary)


def _uninstall_config(tree: _Tree, rel: str, entry: dict[str, Any], report: Report) -> None:
    """The original bytes back when the file is as Apollo left it; else only Apollo's keys out."""
    raw = tree.read(rel)
    backup = entry.get("backup")
    original = tree.read(backup) if backup else None
    if raw is None:
        report.add(rel, "gone")
    elif fs.sha256_bytes(raw) == entry["sha256"]:
        if backup is None:
            tree.remove(rel, based_on=raw)
            report.add(rel, "removed")
        elif original is not None:
            tree.replace(rel, original, based_on=raw)
            report.add(rel, "restored")
        else:
            report.add(rel, "unreadable", f"the saved original {backup} is missing", problem=True)
            return
    else:
        try:
            current = json.loads(raw.decode("utf-8"))
            if not isinstance(current, dict):
                raise ValueError("not a JSON object")
        except (UnicodeDecodeError, ValueError) as exc:
            report.add(rel, "unreadable", str(exc), problem=True)
            return
        tree.replace(rel, _json_bytes(_without_settings(current, entry["settings"])), based_on=raw)
        report.add(rel, "settings-removed", "changed since install: only Apollo's keys were taken out")
    if backup and original is not None:
        tree.remove(backup, based_on=original)
