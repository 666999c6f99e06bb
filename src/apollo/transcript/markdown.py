"""A daily memory file, ``<workspace>/memory/YYYY-MM-DD.md`` (what the renal check script reads).

Elements are the file's blocks: headings, list items (each item with its continuation lines;
nested items are their own elements, parented to the enclosing item), paragraphs, fenced code,
HTML comments and front matter. A heading is structure (``Kind.METADATA``): renal keeps it as it is; it stands
under the nearest heading of a higher level. A line of bold text alone (``**Coping:**``) labels the
blocks after it, up to the next heading or label: they stand under it, and with its colon (or its
question mark, which the blocks answer) it is structure too. Element id ``L<n>``: the 1-based line the block starts
on. ``text`` is the block without its Markdown marker (``## ``, ``- ``), which the writer puts back
on replace.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from apollo.transcript.base import Counter, TranscriptFormat, atomic_output, copy_bytes
from apollo.transcript.fences import FencedCode, opening_fence
from apollo.transcript.model import Edit, Element, Kind, ReadWarning, Role, dropped_ids

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t#]*$")
_ITEM = re.compile(r"^([ \t]*)([-*+]|\d{1,9}[.)])([ \t]+(?:\[[ xX]\][ \t]+)?|$)")
#: the line under a setext heading: "=" for level 1, "-" for level 2 (at least two dashes: one is a list item)
_UNDERLINE = re.compile(r"^ {0,3}(=+|-{2,})[ \t]*$")
_BREAK = re.compile(r"[ \t]*([-*_])[ \t]*(\1[ \t]*){2,}")
_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})")
# A line of bold text alone, maybe with a colon, or one that opens in bold and ends in a colon: a
# label over the blocks after it ("**Coping:**", "**改进方案：**", "**第450次目标**（长期）："), the
# same line autophagy reads as one (entries._BOLD_LABEL); the spaces after the closing mark are read once
# (``[ \t]*+``: split every way between two runs, "**a**", 64k spaces and a word took 17 s)
_LABEL = re.compile(r"[ \t]*(\*\*|__)[^*_\n]+\1(?:[ \t]*+[:：]?|[^\n]*[:：])[ \t]*")


@dataclass(slots=True)
class Block:
    kind: str  # heading | label | item | paragraph | code | comment | front_matter
    start: int  # 0-based first line
    end: int  # exclusive
    text: str
    marker: str = ""
    indent: int = 0
    parent: int | None = None  # start line of the enclosing heading, label or item
    title: str = ""  # the nearest heading or label above: what it names, the block may be
    underline: str = ""  # a setext heading's second line ("-------------")

    @property
    def element_id(self) -> str:
        return f"L{self.start + 1}"


def _decode(raw: bytes) -> list[str]:
    return raw.decode("utf-8", "surrogateescape").splitlines(keepends=True)


def parse_blocks(lines: list[str]) -> list[Block]:
    bare = [line.rstrip("\r\n") for line in lines]
    fenced = FencedCode(bare)
    blocks = _front_matter(bare)
    i = blocks[0].end if blocks else 0
    heading: int | None = None
    section: int | None = None  # the heading, or the label under it, the next blocks stand under
    title = ""  # its text
    headings: list[tuple[int, int]] = []  # (level, start line) of the headings still open
    open_items: list[Block] = []
    while i < len(bare):
        line = bare[i]
        if not line.strip():
            i += 1
            continue
        if fence := opening_fence(line):
            j = fenced.end(i, fence)
            parent = open_items[-1].start if open_items else section
            blocks.append(Block("code", i, j + 1, "\n".join(bare[i:j + 1]), parent=parent, title=title))
            i = j + 1
            continue
        if _opens_comment(line):
            # an HTML comment over several lines, blank ones too: one block (dropped in part, its
            # "<!--" would hide the rest of the file)
            j = next((k for k in range(i + 1, len(bare)) if "-->" in bare[k]), len(bare) - 1)
            blocks.append(Block("comment", i, j + 1, "\n".join(bare[i:j + 1]), parent=section, title=title))
            open_items = []
            i = j + 1
            continue
        setext = _UNDERLINE.match(bare[i + 1]) if i + 1 < len(bare) and not _ITEM.match(line) \
            and not line.lstrip().startswith(">") else None
        if (match := _HEADING.match(line)) is not None or setext is not None:
            level = len(match.group(1)) if match is not None else (1 if bare[i + 1].strip()[0] == "=" else 2)
            while headings and headings[-1][0] >= level:
                headings.pop()
            # a heading stands under the nearest one above it of a higher level ("### a" under "## b")
            if match is not None:
                block = Block("heading", i, i + 1, match.group(2), marker=match.group(1) + " ")
            else:  # "Install steps" over "-------------": the underline is the heading's, never text
                block = Block("heading", i, i + 2, line.strip(), underline=bare[i + 1])
            block.parent = headings[-1][1] if headings else None
            blocks.append(block)
            headings.append((level, i))
            heading, section, title, open_items = i, i, block.text, []
            i = block.end
            continue
        if (match := _ITEM.match(line)) is not None:
            indent = len(match.group(1).expandtabs(4))
            marker = match.group(0)
            j = i + 1
            while j < len(bare) and _continues_item(bare[j], indent):
                j += 1
            while open_items and open_items[-1].indent >= indent:
                open_items.pop()
            body = [line[len(marker):]] + [b.strip() for b in bare[i + 1:j]]
            block = Block("item", i, j, "\n".join(body), marker=marker, indent=indent,
                          parent=open_items[-1].start if open_items else section, title=title)
            blocks.append(block)
            open_items.append(block)
            i = j
            continue
        j = i + 1
        while j < len(bare) and _continues_paragraph(bare[j]):
            j += 1
        if j == i + 1 and _LABEL.fullmatch(line):
            blocks.append(Block("label", i, j, line, parent=heading, title=title))
            section, title = i, line
        else:
            blocks.append(Block("paragraph", i, j, "\n".join(bare[i:j]), parent=section, title=title))
            if _BREAK.fullmatch(line):
                title = ""  # a rule line closes what the title named ("---" before a page's footer)
        open_items = []
        i = j
    return blocks


def _front_matter(bare: list[str]) -> list[Block]:
    """The front matter a file opens with ("---" … "---"), as the one block of a list, or none."""
    if bare and bare[0].strip() == "---":
        close = next((j for j in range(1, len(bare)) if bare[j].strip() in ("---", "...")), None)
        if close is not None:
            return [Block("front_matter", 0, close + 1, "\n".join(bare[1:close]))]
    return []


def _opens_comment(line: str) -> bool:
    """An HTML comment starts on ``line`` ("<!--" at its start, or after text) and goes on past it."""
    return line.rfind("<!--") > line.rfind("-->")


def _starts_list(line: str) -> bool:
    """A list item that may interrupt a paragraph (CommonMark): not empty, and numbered from 1 if
    numbered. "1." alone on its line with the text below it is part of the paragraph (an empty item
    dropped as noise had run a real note's numbered lines together)."""
    match = _ITEM.match(line)
    if match is None or not line[match.end():].strip():
        return False
    number = match.group(2)[:-1]
    return not number.isdigit() or int(number) == 1


class DailyMarkdown(TranscriptFormat):
    name = "markdown"
    structured = True
    where = "OpenClaw workspace: memory/YYYY-MM-DD.md daily notes (and MEMORY.md); any Markdown file"

    def sniff(self, path: Path, head: bytes) -> bool:
        return path.suffix.lower() in (".md", ".markdown")

    def iter_elements(self, path: Path, warnings: list[ReadWarning], count: Counter) -> Iterator[Element]:
        raw = path.read_bytes()
        valid = True
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            valid = False
            line = raw[:exc.start].count(b"\n") + 1
            warnings.append(ReadWarning(str(path), line, "invalid UTF-8; the bytes are kept unchanged "
                                                         "in every block not rewritten"))
        date = _DATE.search(path.name)
        for position, block in enumerate(parse_blocks(_decode(raw))):
            # a heading is the document's structure, not something said: kept as it is, like a
            # session's metadata (dropped as a "repeat" of an earlier date heading, it merged its
            # items into the section before)
            # so is a label that introduces what follows ("**Coping:**") or asks what they answer
            # ("**你在哪里竞争？**"); a bold line without either may be a rule said in bold. Dropped as a
            # "repeat" of the one above, a label had merged their blocks
            structure = block.kind == "heading" or (block.kind == "label" and block.text.rstrip(" \t*_")[-1] in ":：?？")
            kind = Kind.METADATA if structure else Kind.TEXT
            # what is read is text: a byte no encoding explains is U+FFFD, as any reader shows it (an
            # escaped byte, a lone surrogate, is no text a snapshot or a JSON report can hold)
            text = block.text if valid else block.text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            parent = f"L{block.parent + 1}" if block.parent is not None else None
            yield Element(block.element_id, Role.ASSISTANT, kind, text, index=position,
                          tokens=count(text), timestamp=date.group(1) if date else None,
                          parent=parent, record_id=block.element_id, line=block.start + 1, scope=parent or "",
                          extra={"block": block.kind, "marker": block.marker, "title": block.title})

    def write(self, source: Path, dest: Path, edits: Mapping[str, Edit]) -> None:
        if not edits:
            copy_bytes(source, dest)
            return
        lines = _decode(source.read_bytes())
        blocks = {block.element_id: block for block in parse_blocks(lines)}
        dropped = dropped_ids(edits, blocks, missing="block(s) not in the file")
        output: list[str | None] = list(lines)
        for key in sorted(dropped, key=lambda k: blocks[k].start):
            block = blocks[key]
            for n in range(block.start, block.end):
                output[n] = None
            if block.start == 0 or not lines[block.start - 1].strip():
                n = block.end
                while n < len(lines) and not lines[n].strip():
                    output[n] = None
                    n += 1
        owner = {n: block for block in blocks.values() for n in range(block.start, block.end)}
        for key in dropped:  # a drop never joins the blocks it stood between: a blank line keeps them apart
            block = blocks[key]
            above = next((n for n in range(block.start - 1, -1, -1) if output[n] is not None), None)
            below = next((n for n in range(block.end, len(lines)) if output[n] is not None), None)
            if above is not None and below is not None and above in owner and (output[above] or "").strip() \
                    and _absorbs(owner[above], (output[below] or "").rstrip("\r\n")):
                output[block.start] = _ending(lines[block.start]) or "\n"
        for key, edit in edits.items():
            if edit.action == "replace" and edit.text is not None and key not in dropped:
                block = blocks[key]
                output[block.start] = _render(block, edit.text, _ending(lines[block.end - 1]) or _ending(lines[block.start]))
                for n in range(block.start + 1, block.end):
                    output[n] = None
        kept = [line for line in output if line is not None]
        if kept and kept[0].strip() == "---" \
                and not any(block.kind == "front_matter" and key not in dropped for key, block in blocks.items()):
            # a drop brought a thematic break to the top (the front matter's own "---" gone with it),
            # where it would open front matter and re-read everything after it: a blank line keeps it a break
            kept.insert(0, _ending(kept[0]) or "\n")
        with atomic_output(dest) as out:
            out.write("".join(kept).encode("utf-8", "surrogateescape"))


def _absorbs(block: Block, line: str) -> bool:
    """Whether ``line``, right under the last line of ``block``, would be read as part of it (as
    ``parse_blocks`` reads): a paragraph's next line ("Done today:" over "---" is a setext heading), an
    item's indented continuation ("- item" over "  continued")."""
    if block.kind == "item":
        return _continues_item(line, block.indent)
    return block.kind in ("paragraph", "label") and _continues_paragraph(line)


def _opens_block(line: str) -> bool:
    """A line no block goes on into: blank, a heading, a fence, a comment's opening."""
    return not line.strip() or bool(_HEADING.match(line)) or bool(opening_fence(line)) or _opens_comment(line)


def _continues_item(line: str, indent: int) -> bool:
    """``line`` goes on the item above it, indented by ``indent``: indented deeper, and no item of its own."""
    return not _opens_block(line) and not _ITEM.match(line) and len(line) - len(line.lstrip()) > indent


def _continues_paragraph(line: str) -> bool:
    """``line`` goes on the paragraph above it: no list item that may interrupt a paragraph."""
    return not _opens_block(line) and not _starts_list(line)


def _ending(line: str) -> str:
    """The line's end as it is in the file (a line may hold bytes that are not UTF-8, as escapes)."""
    return "\r\n" if line.endswith("\r\n") else "\n" if line.endswith("\n") else ""


def _render(block: Block, text: str, ending: str) -> str:
    text_lines = text.split("\n")
    if block.kind == "item":
        pad = " " * len(block.marker.expandtabs(4))
        rendered = [block.marker + text_lines[0]] + [pad + line for line in text_lines[1:]]
    elif block.kind == "heading":
        rendered = [block.marker + " ".join(text_lines), *([block.underline] if block.underline else [])]
    elif block.kind == "front_matter":
        rendered = ["---", *text_lines, "---"]
    else:
        rendered = text_lines
    return "\n".join(rendered).replace("\n", ending or "\n") + ending
