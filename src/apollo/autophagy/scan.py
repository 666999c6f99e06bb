"""The engine: walk a workspace through directory descriptors and apply the rules.

It knows mechanisms (match a name, prune timestamped entries, validate content, find broken
links, cut marked entries, expire reminders; each check's is in :mod:`apollo.autophagy.file_checks`)
and no pattern: those come from the rules. The same :meth:`Scanner.evaluate` decides during a
scan and again, for one path, right before execution, so a plan can never run something the
rules would not pick today. What active tasks protect comes from :mod:`apollo.autophagy.tasks`.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from apollo import clock
from apollo.autophagy import messages as msg
from apollo.autophagy.file_checks import FILE_CHECKS, LINK_CHECKS
from apollo.autophagy.fs import Root, StatFingerprint, Unsafe, display, open_file, read_fd
from apollo.autophagy.plan import Item, Member
from apollo.autophagy.rules import AutophagyRules, PatternSet, Rule
from apollo.autophagy.tasks import Tasks
from apollo.dirfd import open_dir

if TYPE_CHECKING:
    from apollo.autophagy.places import Places
    from apollo.config import Config

MAX_DEPTH = 512


@dataclass
class ScanResult:
    items: list[Item] = field(default_factory=list)
    protected: list[dict[str, str]] = field(default_factory=list)
    notes: list[dict[str, str]] = field(default_factory=list)


@dataclass
class Scanner:
    """Applies the rules of some tiers to one workspace root."""

    rules: AutophagyRules
    root: Root
    tiers: tuple[str, ...]
    now: datetime
    recent_minutes: float
    tasks: Tasks
    extra_protect: PatternSet
    result: ScanResult = field(default_factory=ScanResult)

    @classmethod
    def for_places(cls, places: Places, rules: AutophagyRules, config: Config, tiers: tuple[str, ...],
                   tasks: Tasks) -> Scanner:
        """The scanner of a run: the workspace of ``places``, Apollo's own folders protected, now."""
        return cls(rules, places.workspace, tiers, clock.now(), float(config.get("autophagy.recent_minutes")), tasks,
                   places.extra_protect)

    def __post_init__(self) -> None:
        self.now_ts = self.now.timestamp()
        #: how the heartbeat log and reminders write a time (the rules' heartbeat.timestamp)
        self.timestamp_pattern = re.compile(self.rules.data.heartbeat.timestamp)
        self._guard_sets: dict[int, PatternSet] = {}
        self._held: dict[tuple[tuple[str, ...], tuple[str, ...]], bool] = {}
        self._link_targets: frozenset[str] | None = None
        self._withheld_parts: set[tuple[str, ...]] = set()

    # -- decisions ------------------------------------------------------------------------------

    def protected_reason(self, rel: str, name: str, is_dir: bool) -> tuple[str, str] | None:
        found = self.rules.protect.match(rel, name, is_dir) or self.extra_protect.match(rel, name, is_dir)
        if found:
            return f"protected ({found.text})", f"受保护（{found.text}）"
        if self.tasks.references(rel):
            return "referenced by an active task", "进行中任务引用的文件"
        if rel in self.link_targets():
            return "target of a protected symlink", "受保护符号链接的目标"
        return None

    def link_targets(self) -> frozenset[str]:
        """Where protected names that are symlinks (``MEMORY.md -> memory/MEMORY.md.orig``)
        point inside the workspace: protected as the names are. Found once per scanner, by
        listing every folder that is not protected itself (no link followed, no mount crossed)."""
        if self._link_targets is None:
            self._link_targets = frozenset()  # while looking: the protect check below must not recurse
            found: set[str] = set()
            stack: list[tuple[int, tuple[str, ...]]] = [(os.dup(self.root.fd), ())]
            while stack:
                fd, base = stack.pop()
                try:
                    for entry in _listing(fd):
                        parts = (*base, entry.name)
                        rel = "/".join(parts)
                        try:
                            is_dir = entry.is_dir(follow_symlinks=False)
                            is_link = not is_dir and entry.is_symlink()
                        except OSError:
                            continue
                        protected = self.protected_reason(rel, entry.name, is_dir or is_link)
                        if is_link and protected:
                            target = self._safe_readlink(fd, entry.name)
                            resolved = self.resolve_inside(base, target) if target is not None else None
                            if resolved is not None:
                                found.add("/".join(resolved[0]))
                        elif is_dir and not protected and len(base) < MAX_DEPTH:
                            try:
                                sub = open_dir(entry.name, dir_fd=fd)
                            except OSError:
                                continue
                            if self.root.same_mount(sub):
                                stack.append((sub, parts))
                            else:
                                os.close(sub)
                finally:
                    os.close(fd)
            self._link_targets = frozenset(found)
        return self._link_targets

    def protected_path(self, parts: Sequence[str], is_dir: bool) -> tuple[str, str] | None:
        """The protect check of a whole path: the path or any folder above it."""
        for depth in range(1, len(parts) + 1):
            rel = "/".join(parts[:depth])
            reason = self.protected_reason(rel, parts[depth - 1], is_dir or depth < len(parts))
            if reason:
                return reason
        return None

    def editable(self, rel: str, name: str) -> bool:
        return self.rules.editable.match(rel, name, False) is not None and not self.tasks.references(rel)

    def recent(self, st: os.stat_result) -> bool:
        return st.st_mtime > self.now_ts - self.recent_minutes * 60

    def keep(self, parts: Sequence[str], reason: str, reason_zh: str) -> None:
        self.result.protected.append({"path": display("/".join(parts)), "reason": reason, "reason_zh": reason_zh})

    def _note(self, parts: Sequence[str], reason: str, reason_zh: str) -> None:
        self.result.notes.append({"path": display("/".join(parts)) or ".", "reason": reason, "reason_zh": reason_zh})

    def in_reminders(self, parts: Sequence[str]) -> bool:
        return self.rules.reminder_folders.match_any_prefix(parts[:-1], True) is not None

    def evaluate(self, tier: str, dir_fd: int, parts: tuple[str, ...], st: os.stat_result, *,
                 editable: bool = False, in_reminders: bool | None = None, record: bool = True) -> list[Item]:
        """The items one file, link or folder yields under ``tier`` (empty when none)."""
        name = parts[-1]
        rel = "/".join(parts)
        mode = st.st_mode
        # a file the agent's instructions name may lose entries, never the whole of it (looked up
        # only for what a rule would remove whole)
        named = self.tasks.named.reason
        items: list[Item] = []
        for rule, patterns, exclude in self.rules.rules(tier):
            if stat.S_ISLNK(mode):
                if rule.check in LINK_CHECKS:
                    found = LINK_CHECKS[rule.check](self, rule, dir_fd, parts, st, record)
                    if found and (why := named(rel)):
                        self._withheld(parts, why, record)
                        continue
                    items += found
                continue
            if stat.S_ISDIR(mode):
                if rule.check == "match" and rule.type == "dir" and patterns.match(rel, name, True) \
                        and not exclude.match(rel, name, True) and not self._guarded(rule, patterns, dir_fd, parts, True):
                    named_inside = self.tasks.named.holds(rel)
                    if named_inside:
                        self._withheld(parts, named_inside, record)
                        return items
                    return self._tree(rule, dir_fd, parts, st)
                continue
            check = FILE_CHECKS.get(rule.check)
            if check is None or not stat.S_ISREG(mode) or (editable and not check.edits_protected):
                continue
            if check.by_folder:
                inside = self.in_reminders(parts) if in_reminders is None else in_reminders
                if not inside:
                    continue
            elif not patterns.match(rel, name, False) or exclude.match(rel, name, False):
                continue
            if rule.check == "match" and (rule.type != "file" or self._guarded(rule, patterns, dir_fd, parts, False)):
                continue
            if not check.touches_recent and self.recent(st):
                if record:
                    self.keep(parts, *msg.recent(self.recent_minutes))
                return items
            found = check.find(self, rule, dir_fd, parts, st)
            if not found:
                continue
            if found[0].action == "unlink":
                if why := named(rel):
                    self._withheld(parts, why, record)
                    continue
                return [found[0]] if not any(i.action == "cut" for i in items) else items
            items += found
        return items

    def _withheld(self, parts: Sequence[str], reason: tuple[str, str], record: bool) -> None:
        """A whole removal a rule picked and the agent's instructions forbid: kept, and said once."""
        if record and tuple(parts) not in self._withheld_parts:
            self._withheld_parts.add(tuple(parts))
            self.keep(parts, *reason)

    def _guarded(self, rule: Rule, patterns: PatternSet, dir_fd: int, parts: tuple[str, ...], is_dir: bool) -> bool:
        """Whether a match rule's guards keep this path: it lies in an environment or installed
        packages, is a package's source, or is shipped by the manifest beside it. A pattern that
        names the full path (anchored, no ``**``) is the user asking for exactly it: no guard."""
        found = patterns.match("/".join(parts), parts[-1], is_dir)
        if found is not None and found.anchored and "**" not in found.text:
            return False
        if rule.never_within:
            within = self._guard_sets.setdefault(id(rule), PatternSet.compile(rule.never_within))
            if within.match_any_prefix(parts[:-1], True):
                return True
        if any(self._holds(parts[:depth], rule.never_within_holding) for depth in range(len(parts))):
            return True
        if is_dir and rule.never_holding and self._holds(parts, rule.never_holding):
            return True
        return any(self._ships(dir_fd, manifest, keys, parts[-1]) for manifest, keys in rule.shipped_by.items())

    def _ships(self, dir_fd: int, manifest: str, keys: Sequence[str], name: str) -> bool:
        """Whether the JSON manifest beside a folder ships it; one that is there but cannot be
        read or parsed is taken to ship it (fail closed)."""
        try:
            st = os.stat(manifest, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            return False
        except OSError:
            return True
        shipped = _shipped(self.read(dir_fd, manifest, st.st_size), keys)
        return shipped is None or name in shipped

    def _holds(self, folder: tuple[str, ...], names: Sequence[str]) -> bool:
        """Whether the folder holds any of ``names`` (remembered per folder during one scan);
        a folder that cannot be looked into is taken to hold them (fail closed)."""
        if not names:
            return False
        key = (folder, tuple(names))
        if key not in self._held:
            try:
                fd = self.root.open_dir(folder)
            except (OSError, Unsafe):
                self._held[key] = True
            else:
                try:
                    self._held[key] = any(_exists(fd, n) for n in names)
                finally:
                    os.close(fd)
        return self._held[key]

    def item(self, rule: Rule, parts: Sequence[str], st: os.stat_result, action: str, size: int,
             reason: str | None = None, reason_zh: str | None = None, **extra: object) -> Item:
        return Item(id="", kind=rule.kind, category=rule.category, root="workspace", parts=list(parts), action=action,
                    bytes=size, reason=reason or rule.reason, reason_zh=reason_zh or rule.reason_zh,
                    fp=StatFingerprint.of(st).to_list(), **extra)  # type: ignore[arg-type]

    def read(self, dir_fd: int, name: str, size: int) -> bytes | None:
        """A file's first ``size`` bytes (what a log held when it was stat'ed, whatever a writer
        appends meanwhile); None for a file over the size limit (never read, never judged: a
        4 GiB sparse file must not be loaded whole)."""
        if size > self.rules.data.corrupt.max_check_mb * 1024 * 1024:
            return None
        try:
            fd = open_file(dir_fd, name)
        except (OSError, Unsafe):
            return None
        try:
            return read_fd(fd, size)
        finally:
            os.close(fd)

    def whole(self, dir_fd: int, name: str, st: os.stat_result, *, text: bool = False) -> bytes | None:
        """All of a file as it was stat'ed (None when it cannot be, or, with ``text``, is not UTF-8)."""
        data = self.read(dir_fd, name, st.st_size)
        if data is None or len(data) != st.st_size:
            return None
        if text:
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                return None
        return data

    def resolve_inside(self, base: Sequence[str], target: str) -> tuple[tuple[str, ...], bool] | None:
        """Resolve a link target physically without following any link: (parts, exists), or
        None when it leaves the workspace or passes through another link (never examined)."""
        if target.startswith("/"):
            try:
                rel = PurePosixPath(target).relative_to(self.root.path)
            except ValueError:
                return None
            walk: list[str] = []
            pending = list(rel.parts)
        else:
            walk = list(base)
            pending = list(PurePosixPath(target).parts)
        fd = os.dup(self.root.fd)
        try:
            for part in walk:
                fd = _step(fd, part)
            trail = list(walk)
            for index, part in enumerate(pending):
                if part in ("", "."):
                    continue
                if part == "..":
                    if not trail:
                        return None
                    trail.pop()
                    os.close(fd)
                    fd = os.dup(self.root.fd)
                    for p in trail:
                        fd = _step(fd, p)
                    continue
                last = index == len(pending) - 1
                try:
                    st = os.stat(part, dir_fd=fd, follow_symlinks=False)
                except FileNotFoundError:
                    return (*trail, part), False
                except OSError:
                    return None
                if stat.S_ISLNK(st.st_mode):
                    return None
                trail.append(part)
                if last:
                    return tuple(trail), True
                if not stat.S_ISDIR(st.st_mode):
                    return None
                fd = _step(fd, part)
                if not self.root.same_mount(fd):
                    return None
            return tuple(trail), True
        except (OSError, Unsafe):
            return None
        finally:
            os.close(fd)

    def _tree(self, rule: Rule, dir_fd: int, parts: tuple[str, ...], st: os.stat_result) -> list[Item]:
        """A whole folder: every member the rules allow; protected or recent members stay (and
        so does the folder around them)."""
        try:
            top = open_dir(parts[-1], dir_fd=dir_fd)
        except OSError:
            return []
        if not self.root.same_mount(top):
            os.close(top)
            self._note(parts, *msg.MOUNT_POINT)
            return []
        members: list[Member] = [Member(list(parts), [st.st_dev, st.st_ino, 0, 0, stat.S_IFDIR], True)]
        size = 0
        kept = 0
        stack: list[tuple[int, tuple[str, ...], Iterator[os.DirEntry[str]]]] = [(top, parts, iter(_listing(top)))]
        while stack:
            fd, base, pending = stack[-1]
            entry = next(pending, None)
            if entry is None:
                os.close(fd)
                stack.pop()
                continue
            child = (*base, entry.name)
            rel = "/".join(child)
            try:
                est = entry.stat(follow_symlinks=False)
            except OSError:
                kept += 1
                continue
            is_dir = stat.S_ISDIR(est.st_mode)
            is_link = stat.S_ISLNK(est.st_mode)
            reason = self.protected_reason(rel, entry.name, is_dir or is_link)
            reason = reason or (self.protected_reason(rel, entry.name, False) if is_link else None)
            if reason and not is_link:  # e.g. a repository (.git/) inside: not disposable output, kept whole
                for open_fd, _base, _pending in stack:
                    os.close(open_fd)
                self.keep(child, *reason)
                self.keep(parts, f"holds {display(rel)}, which is protected",
                           f"包含受保护的 {display(rel)}")
                return []
            if reason:
                self.keep(child, *reason)
                kept += 1
                continue
            if is_link:  # the link itself goes with the folder; its target is never looked at
                link = self._tree_link(fd, entry.name, child, est)
                if link is None:
                    kept += 1
                else:
                    members.append(link)
                continue
            if is_dir:
                sub = self._tree_enter(fd, entry.name, child, depth=len(stack))
                if sub is None:
                    kept += 1
                    continue
                members.append(Member(list(child), [est.st_dev, est.st_ino, 0, 0, stat.S_IFDIR], True))
                stack.append((sub, child, iter(_listing(sub))))
                continue
            if not stat.S_ISREG(est.st_mode) or self.recent(est):
                if self.recent(est):
                    self.keep(child, *msg.recent(self.recent_minutes))
                kept += 1
                continue
            members.append(Member(list(child), StatFingerprint.of(est).to_list()))
            size += est.st_size
        files = sum(1 for m in members if not m.is_dir)
        if kept and not files:  # all it holds stays, so the folder does too: nothing a run would remove
            self.keep(parts, f"everything inside is kept ({kept} items)", f"其中内容全部保留（{kept} 项）")
            return []
        note = f" ({files} files" + (f", {kept} kept inside)" if kept else ")")
        note_zh = f"（{files} 个文件" + (f"，其中 {kept} 项保留）" if kept else "）")
        return [self.item(rule, parts, st, "tree", size, rule.reason + note, rule.reason_zh + note_zh,
                           members=members)]

    def _tree_link(self, fd: int, name: str, child: tuple[str, ...], est: os.stat_result) -> Member | None:
        """A symlink inside a folder that goes whole: a member, or None (kept) when it points at a
        protected path or was just modified."""
        target = self._safe_readlink(fd, name)
        if target is None or any(self.rules.protect.match(p, p, True) or self.rules.protect.match(p, p, False)
                                 for p in PurePosixPath(target).parts):
            self.keep(child, *msg.LINK_TO_PROTECTED)
            return None
        if self.recent(est):
            self.keep(child, *msg.recent(self.recent_minutes))
            return None
        return Member(list(child), StatFingerprint.of(est).to_list())

    def _tree_enter(self, fd: int, name: str, child: tuple[str, ...], *, depth: int) -> int | None:
        """An fd for a subfolder of a folder that goes whole, or None (kept, not entered) when it is
        too deep, cannot be opened or is a mount point."""
        if depth >= MAX_DEPTH:
            self._note(child, *msg.TOO_DEEP)
            return None
        try:
            sub = open_dir(name, dir_fd=fd)
        except OSError:
            return None
        if not self.root.same_mount(sub):
            os.close(sub)
            self._note(child, *msg.MOUNT_POINT)
            return None
        return sub

    @staticmethod
    def _safe_readlink(dir_fd: int, name: str) -> str | None:
        try:
            return os.readlink(name, dir_fd=dir_fd)
        except OSError:
            return None

    # -- the walk -------------------------------------------------------------------------------

    def scan(self) -> ScanResult:
        """Every item of the scanner's tiers in the workspace, plus what was kept and why."""
        top = os.dup(self.root.fd)
        stack: list[tuple[int, tuple[str, ...], bool, Iterator[os.DirEntry[str]]]] = [(top, (), False, iter(_listing(top)))]
        while stack:
            fd, base, reminders, pending = stack[-1]
            entry = next(pending, None)
            if entry is None:
                os.close(fd)
                stack.pop()
                continue
            self._visit(fd, base, reminders, entry, stack)
        return self.result

    def _visit(self, fd: int, base: tuple[str, ...], reminders: bool, entry: os.DirEntry[str], stack: list) -> None:
        name = entry.name
        parts = (*base, name)
        rel = "/".join(parts)
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
            is_link = not is_dir and entry.is_symlink()
        except OSError:
            return
        reason = self.protected_reason(rel, name, is_dir)
        if reason is None and is_link:
            reason = self.protected_reason(rel, name, True)
        editable = False
        if reason:
            if is_dir or not self.editable(rel, name):
                self.keep(parts, *reason)
                return
            editable = True
        try:
            if is_dir:
                self._visit_dir(fd, parts, rel, reminders, entry, stack)
                return
            for tier in self.tiers:  # only names some rule could want are ever stat'ed or read
                if tier != "large" and (editable or self.rules.interested(tier, rel, name, is_link, reminders)):
                    st = entry.stat(follow_symlinks=False)
                    self.result.items += self.evaluate(tier, fd, parts, st, editable=editable, in_reminders=reminders)
        except OSError:
            return

    def _visit_dir(self, fd: int, parts: tuple[str, ...], rel: str, reminders: bool, entry: os.DirEntry[str],
                   stack: list) -> None:
        name = parts[-1]
        try:
            sub = open_dir(name, dir_fd=fd)
        except OSError as exc:
            self._note(parts, f"cannot enter ({exc.strerror})", f"无法进入（{exc.strerror}）")
            return
        if not self.root.same_mount(sub):  # a bind mount shares the device: the mount id tells
            os.close(sub)
            self._note(parts, *msg.MOUNT_POINT)
            return
        if "small" in self.tiers and self.rules.wants_folder(rel, name):
            found = self.evaluate("small", fd, parts, entry.stat(follow_symlinks=False))
            if found:
                os.close(sub)
                self.result.items += found
                return
        if len(stack) >= MAX_DEPTH:
            os.close(sub)
            self._note(parts, *msg.TOO_DEEP)
            return
        inside = reminders or self.rules.reminder_folders.match(rel, name, True) is not None
        stack.append((sub, parts, inside, iter(_listing(sub, on_error=lambda e: self._note(parts, *e)))))


def _exists(dir_fd: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        return True
    except FileNotFoundError:
        return False
    except OSError:
        return True  # cannot tell: the guard holds


def _shipped(manifest: bytes | None, keys: Sequence[str]) -> set[str] | None:
    """The first path component of every string under ``keys`` of a JSON manifest ("./dist/x.js"
    and "dist/**" both ship ``dist``); None when it cannot be read or parsed."""
    if manifest is None:
        return None
    try:
        data = json.loads(manifest)
    except (ValueError, UnicodeDecodeError):
        return None
    found: set[str] = set()
    pending = [data[k] for k in keys if isinstance(data, dict) and k in data]
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            head = next((p for p in PurePosixPath(value).parts if p not in (".", "/")), "")
            found.add(head)
        elif isinstance(value, list):
            pending += value
        elif isinstance(value, dict):
            pending += value.values()
    return found


def _step(fd: int, name: str) -> int:
    child = open_dir(name, dir_fd=fd)
    os.close(fd)
    return child


def _listing(fd: int, on_error=None) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(fd) as it:
            return sorted(it, key=lambda e: e.name)
    except OSError as exc:
        if on_error:
            on_error((f"cannot list ({exc.strerror})", f"无法列出（{exc.strerror}）"))
        return []
