"""What the agent's own instructions name: files it keeps as its record, whatever their kind.

A workspace's instruction and memory files (AGENTS.md, MEMORY.md, ...: ``[protect] named_in``)
tell the agent which files it writes and reads back. One real workspace keeps an append-only
``activity.log`` per channel that AGENTS.md calls the action history and tells the agent to read
before it asks anything: to the small tier's stale-log rule it is a log, to the agent it is memory.

So a file a whole-file rule picks is kept when the instructions mention its name: looked up as it
is, ignoring case and Unicode composition, with Markdown's escapes taken out, where no Latin letter
or digit runs on into it on either side (Chinese text, a path, Markdown emphasis around it all count
as edges), or when its path ends as a template they write (``logs/YYYY-MM-DD.log``, ``hist/*.log``,
``reports/<name>.json``; ``{channel}.log`` alone names no file). A folder a folder rule picks (build
output, a cache) is kept when they name a file inside it by a path from the root (``build/report.log``);
a bare name inside it goes with it, since the next build makes its files again. Entries may still be
cut out of a named file (a heartbeat log). The Markdown files the instructions name by a path from
the root, or by a bare name at the root, are read too, as deep as ``[protect] named_depth``, and so
are those directly in a folder they name by a path from the root with its closing slash
(``system/experiments/``: a real workspace's experiment spec, there, names its ``changelog.log``), but
the dated notes of a diary (``memory/2026-11-28.md``, which lists the broken files it found); those
come after the files named by their path, within their own caps, so that they never crowd one out.

The instruction files at the root must be readable: one that exists and cannot be read (a link to
nothing, a folder, a pipe, no permission) stops the run before anything is written, as an unreadable
task state does. A file they only name that cannot be read is skipped (unless permission is refused);
a folder's note, or a folder, that cannot be read is passed over.
"""

from __future__ import annotations

import codecs
import errno
import fnmatch
import os
import re
import stat
import unicodedata
from dataclasses import dataclass, field

from apollo.autophagy.fs import Root, read_fd
from apollo.autophagy.rules import AutophagyRules
from apollo.errors import ConfigError

#: an instruction file larger than this is read only this far (they are a few kB)
READ_LIMIT = 4 << 20
#: how much is read in all, and how many files: instructions that name hundreds of notes are not followed further
TOTAL_LIMIT = 16 << 20
MAX_FILES = 200
#: what runs on into a name: then it is part of another word ("activity.logs", "myactivity.log")
_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
#: the run of Latin letters and digits a name ends with
_LAST_RUN = re.compile(r"[a-z0-9]+\Z")
#: what looking a name up through the index costs, per mention of the run it ends with, in characters
#: a plain search reads (a Python step against a scan in C)
_INDEX_STEP = 40
#: what the pass over the texts that builds an index costs, per character, in the same units (a
#: regular expression's scan against a plain search's)
_INDEX_PASS = 50
#: a run of the characters a path is written with, and the "~" or "$" right before it (linear: one
#: pass, no backtracking)
_PATH_RUN = re.compile(r"([~$]?)([A-Za-z0-9_./-]+)")
#: a template's placeholder: a run of date parts (YYYY-MM-DD, YYYYMMDD, yyyy), a <name>, a {name}, a *
_PLACEHOLDER = re.compile(r"(?<![A-Za-z])(?:YYYY|yyyy|MM|mm|DD|dd|HH|hh)+(?![A-Za-z])|<[^<>\s/]{1,40}>|\{[^{}\s/]{1,40}\}|\*")
_DATE_PART = re.compile(r"YYYY|yyyy|MM|mm|DD|dd|HH|hh")
#: a run of text a template is written in (split first: linear)
_WORD_RUN = re.compile(r"[^\s`'\"()\[\]，。；：、]+")
#: what a Markdown writer puts into a name: an escaped underscore, a percent-encoded space
_ESCAPES = re.compile(r"\\([_*\\`])|%20")


@dataclass(frozen=True, eq=False)
class Named:
    """The instruction texts (case-folded and composed (NFC), the workspace's own absolute path and
    Markdown's escapes taken out), by file."""

    texts: tuple[tuple[str, str], ...] = ()
    #: path templates they write, as (source, pattern on the end of a case-folded path)
    templates: tuple[tuple[str, re.Pattern[str]], ...] = ()
    #: path -> the file that names it (None: none); names repeat (an activity.log in every folder)
    _known: dict[str, str | None] = field(default_factory=dict, repr=False)
    #: (a name's last run of letters and digits, its length) -> each text's stretch of that length
    #: ending with that run, set off before, -> the first file holding it (:meth:`_mentioning`)
    _stretches: dict[tuple[str, int], dict[str, str]] = field(default_factory=dict, repr=False)
    #: (run, length) -> the characters plain searches of names of that kind have read so far
    _searched: dict[tuple[str, int], int] = field(default_factory=dict, repr=False)
    #: run -> what an index of the names ending with it costs (a pass over the texts, and a step per
    #: mention of it: :data:`_INDEX_PASS`, :data:`_INDEX_STEP`)
    _costs: dict[str, int] = field(default_factory=dict, repr=False)

    def reason(self, rel: str) -> tuple[str, str] | None:
        """Why the file at ``rel`` is never removed whole: the instruction file that names it."""
        source = self._naming(unicodedata.normalize("NFC", rel).casefold())
        if source is None:
            return None
        return (f"named in {source}: the agent's own record, never removed whole",
                f"{source} 中提到的文件：agent 自己的记录，不整体删除")

    def holds(self, rel: str) -> tuple[str, str] | None:
        """Why the folder ``rel`` is not removed whole: the instructions name a path inside it, from
        the workspace root ("build/report.log"; "never commit build/" names no file in it)."""
        folder = unicodedata.normalize("NFC", rel).casefold().rstrip("/") + "/"
        source = next((source for source, text in self.texts if _inside(text, folder)), None)
        if source is None:
            return None
        return (f"{source} names a file inside it: the agent's own record", f"{source} 提到其中的文件：agent 自己的记录")

    def _naming(self, rel: str) -> str | None:
        if rel not in self._known:
            found = self._mentioning(rel.rsplit("/", 1)[-1])
            self._known[rel] = found or next((source for source, pattern in self.templates
                                              if pattern.search(rel)), None)
        return self._known[rel]

    def _mentioning(self, name: str) -> str | None:
        """The first text that mentions ``name`` (:func:`_mentioned`): searched for plainly, until the
        names of its kind have cost as much as an index of them (thousands of old logs beside megabytes
        of notes). A name that ends in a letter or digit ends in a run of them (``log`` in
        ``activity.log``) that is whole wherever the name is set off, so the stretches of the name's
        length ending with such a whole run, set off before, are all its mentions can be (one pass
        per kind, one set)."""
        run = _LAST_RUN.search(name)
        key = (run.group(0), len(name)) if run is not None else None
        if key is None or key not in self._stretches and self._searched.get(key, 0) < self._index_cost(key[0]):
            if key is not None:
                self._searched[key] = self._searched.get(key, 0) + sum(len(text) for _, text in self.texts)
            return next((source for source, text in self.texts if _mentioned(text, name)), None)
        if key not in self._stretches:
            stretches: dict[str, str] = {}
            whole = re.compile(rf"(?<![a-z0-9]){re.escape(key[0])}(?![a-z0-9])")
            for source, text in self.texts:
                for found in whole.finditer(text, max(key[1] - len(key[0]), 0)):
                    start = found.end() - key[1]
                    if start == 0 or text[start - 1] not in _ALNUM:
                        stretches.setdefault(text[start:found.end()], source)
            self._stretches[key] = stretches
        return self._stretches[key].get(name)

    def _index_cost(self, run: str) -> int:
        if run not in self._costs:
            self._costs[run] = sum(_INDEX_PASS * len(text) + _INDEX_STEP * text.count(run) for _, text in self.texts)
        return self._costs[run]


def _mentioned(text: str, name: str) -> bool:
    """``name`` occurs in ``text`` with no Latin letter or digit running on into it on either side."""
    at = text.find(name)
    while at >= 0:
        end = at + len(name)
        if (at == 0 or text[at - 1] not in _ALNUM) and (end == len(text) or text[end] not in _ALNUM):
            return True
        at = text.find(name, at + 1)
    return False


def _inside(text: str, folder: str) -> bool:
    """``text`` names a file inside ``folder`` by a path from the root: ``folder`` then a name, where it
    starts a path (no letter, digit or "/" before it, but a leading "./")."""
    at = text.find(folder)
    while at >= 0:
        start = at - 2 if text[max(0, at - 2):at] == "./" else at
        before = text[start - 1] if start > 0 else " "
        after = text[at + len(folder)] if at + len(folder) < len(text) else " "
        if before not in _ALNUM and before not in "/.-_" and (after in _ALNUM or after in "._-"):
            return True
        at = text.find(folder, at + 1)
    return False


def load_named(root: Root, rules: AutophagyRules) -> Named:
    """Read the workspace's instruction files and the Markdown files they name (fail closed: see
    the module's docstring)."""
    spec = rules.data.protect
    wanted = {name.casefold() for name in spec.named_in}
    try:
        files = sorted(entry.name for entry in os.scandir(root.fd) if entry.name.casefold() in wanted)
    except OSError as exc:
        raise ConfigError(f"cannot list the workspace to read the agent's instructions ({exc.strerror})",
                          where=str(root.path), hint="nothing is deleted while what they name is unknown") from None
    reader = _Reader(root, tuple(ext.casefold() for ext in spec.named_follow), tuple(spec.named_folder_skip),
                     seen={name.casefold() for name in files})
    notes: list[str] = []
    for depth in range(spec.named_depth + 1):
        # the files named by their path first: a folder's notes never take the room they need
        next_files, next_notes = reader.read(files, at_root=depth == 0)
        more_files, more_notes = reader.read(notes, note=True)
        files, notes = next_files + more_files, next_notes + more_notes
    return Named(tuple(reader.texts), tuple(reader.templates.values()))


@dataclass(eq=False)
class _Reader:
    """What :func:`load_named` has read so far: the texts, the templates in them, what was named."""

    root: Root
    follow: tuple[str, ...]
    skip: tuple[str, ...]
    seen: set[str]
    texts: list[tuple[str, str]] = field(default_factory=list)
    templates: dict[str, tuple[str, re.Pattern[str]]] = field(default_factory=dict)
    listed: set[str] = field(default_factory=set)
    seen_notes: set[str] = field(default_factory=set)
    total: int = 0
    notes_total: int = 0

    def read(self, pending: list[str], *, at_root: bool = False, note: bool = False) -> tuple[list[str], list[str]]:
        """Read ``pending`` while the caps allow (a folder's notes: at most half the bytes, and passed
        over when they cannot be read); return the files they name by path and the notes of the folders
        they name, for the next step."""
        files: list[str] = []
        notes: list[str] = []
        prefixes = sorted({str(self.root.path) + "/", str(self.root.given) + "/"}, key=len, reverse=True)
        for source in pending:
            # the instruction files at the root are read whole whatever the caps (one that cannot be read
            # stops the run); what they name, within what is left; a folder's notes within half of that,
            # and half of the total: the files named by path after them always find room
            left = TOTAL_LIMIT - self.total
            room = min(READ_LIMIT, left // 2, TOTAL_LIMIT // 2 - self.notes_total) if note else min(READ_LIMIT, left)
            if room <= 0 and not at_root:
                break
            raw = _read(self.root, source, at_root=at_root, strict=not note, limit=READ_LIMIT if at_root else room)
            if raw is None:
                continue
            self.total += len(raw)
            self.notes_total += len(raw) if note else 0
            raw = _ESCAPES.sub(lambda m: m.group(1) or " ", unicodedata.normalize("NFC", raw))
            for prefix in prefixes:
                raw = raw.replace(prefix, "")
            self.texts.append((source, raw.casefold()))
            for pattern in _templates(raw):
                self.templates.setdefault(pattern.pattern, (source, pattern))
            for path in _followed(raw, self.follow):
                if not path.endswith("/"):
                    if path.casefold() not in self.seen and len(self.seen) < MAX_FILES:
                        self.seen.add(path.casefold())
                        files.append(path)
                elif path.casefold() not in self.listed:  # a folder: its notes, listed once however often named
                    self.listed.add(path.casefold())
                    notes += self._notes(path)
        return files, notes

    def _notes(self, folder: str) -> list[str]:
        found = []
        for each in _notes_in(self.root, folder, self.follow, self.skip):
            key = each.casefold()
            if key not in self.seen and key not in self.seen_notes and len(self.seen_notes) < MAX_FILES:
                self.seen_notes.add(key)
                found.append(each)
        return found


def _followed(text: str, extensions: tuple[str, ...]) -> list[str]:
    """The Markdown files ``text`` names by a path from the root (``system/policy.md``,
    ``./system/policy.md``) or by a bare name (``QUICKGUIDE.md``, read at the root), and the folders
    it names by a path from the root written with its closing slash (``system/experiments/``, kept
    with that slash); never a path that climbs out (``..``) or starts at ``/`` (another place than
    this workspace)."""
    found = []
    for before, run in _PATH_RUN.findall(text):  # a list made in one pass: most runs are plain words
        if before:
            continue  # ~/notes.md, $HOME/...: not a path from the workspace
        run = run.rstrip(".")
        folder = run.endswith("/")
        if not (folder or run.casefold().endswith(extensions)) or run.startswith("/"):
            continue
        parts = [part for part in run.split("/") if part not in ("", ".")]
        if parts and ".." not in parts:
            found.append("/".join(parts) + ("/" if folder else ""))
    return found


def _notes_in(root: Root, folder: str, extensions: tuple[str, ...], skip: tuple[str, ...]) -> list[str]:
    """The files with one of ``extensions`` directly in ``folder`` (a path from the root), by name, but
    those ``skip`` matches (a diary: ``[protect] named_folder_skip``): instructions that send the agent
    to a folder ("experiments live in `system/experiments/`") send it to the notes there. A folder
    that is missing, no folder, outside the workspace (through a link) or that cannot be listed has
    none: a mention in passing ("the database lives in `data/postgres/`") stops nothing."""
    path = os.path.join(root.path, folder)
    if not root.leads_inside(path):
        return []
    try:
        with os.scandir(path) as entries:
            names = sorted(entry.name for entry in entries if entry.name.casefold().endswith(extensions)
                           and not any(fnmatch.fnmatch(entry.name, pattern) for pattern in skip))
    except OSError:
        return []
    return [folder + name for name in names]


def _templates(text: str) -> list[re.Pattern[str]]:
    """Path templates in ``text`` (``logs/YYYY-MM-DD.log``, ``hist/*.log``, ``reports/<name>-summary.json``),
    placeholders as wildcards within one folder, matched against the end of a file's path. One whose
    file name is nothing but a placeholder and an extension (``{channel}.log``, ``*.log``) names no
    file unless a folder comes with it (``channels/{channel}.log``)."""
    patterns = []
    for word in _WORD_RUN.findall(text):
        template = word.rstrip(".,;:").lstrip("./")
        last = template.rsplit("/", 1)[-1]
        if "." not in last:  # no extension: no template (most words)
            continue
        literal = _PLACEHOLDER.sub("", last)
        if literal == last or not re.search(r"\.[A-Za-z][A-Za-z0-9]{0,7}$", literal):
            continue
        if "/" not in template and not literal.rsplit(".", 1)[0]:
            continue
        pieces, at = [], 0
        for placeholder in _PLACEHOLDER.finditer(template):
            pieces.append(re.escape(template[at:placeholder.start()].casefold()))
            pieces.append(_wildcard(placeholder.group(0)))
            at = placeholder.end()
        pieces.append(re.escape(template[at:].casefold()))
        patterns.append(re.compile("(?:^|/)" + "".join(pieces) + "$"))
    return patterns


def _wildcard(placeholder: str) -> str:
    """A date run as digits of its length (YYYY-MM-DD's parts, YYYYMMDD), anything else as a name."""
    if _DATE_PART.fullmatch(placeholder[:4]) or _DATE_PART.fullmatch(placeholder[:2]):
        return "".join(r"\d{4}" if part.upper() == "YYYY" else r"\d{2}" for part in _DATE_PART.findall(placeholder))
    return r"[^/]*" if placeholder == "*" else r"[^/]+"


def _read(root: Root, source: str, *, at_root: bool, strict: bool = True, limit: int = READ_LIMIT) -> str | None:
    """A file's text, decoded by its byte-order mark (else UTF-8). At the root, a file that exists
    and cannot be read is a ConfigError; a file the instructions only name is then skipped, unless
    permission is refused (and ``strict``: a note found in a named folder is passed over), or it
    leads outside the workspace."""
    path = os.path.join(root.path, source)
    if not at_root:
        try:
            st = os.stat(path)
        except PermissionError as exc:
            if not strict:
                return None
            raise _unreadable(source, path, exc.strerror or str(exc)) from None
        except OSError:
            return None
        if not root.leads_inside(path) or not stat.S_ISREG(st.st_mode):
            return None  # outside the workspace (through a link), or not a file: it names nothing here
    try:
        # read only, and through a link, as the agent reads it; a pipe is never waited on
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise IsADirectoryError(errno.EISDIR, "not a regular file")
            data = read_fd(fd, limit)
        finally:
            os.close(fd)
    except OSError as exc:
        if at_root or strict and exc.errno in (errno.EACCES, errno.EPERM):
            reason = "not a regular file" if isinstance(exc, IsADirectoryError) else exc.strerror or str(exc)
            raise _unreadable(source, path, reason) from None
        return None
    for bom, encoding in ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
                          (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            return data.decode(encoding, errors="replace")
    return data.decode("utf-8-sig", errors="replace")


def _unreadable(source: str, path: str, reason: str) -> ConfigError:
    return ConfigError(f"cannot read {source} ({reason})", where=path,
                       hint="fix or move it; nothing is deleted while the files it names are unknown")
