"""What a check leaves for the next check of the same session: the classifier's and the fate
stream's state after the last element, so that the heartbeat after growth classifies only what
was appended.

The classifier decides each element with what it remembers of the earlier ones (questions still
open, decisions a later one may supersede, tool calls a later one may repeat), and the fate
stream likewise; both are deterministic in the elements they were fed. So a check that finds
the session's first ``n`` elements exactly as the last check fed them (each element whole: id,
text, tokens, whether it is in the model's context…, chained in one SHA-256) continues from that
state with the elements after them, and its numbers are the ones a check of the whole session
gives. Anything else, an earlier message edited, a compaction or a new branch that changes what
the model sees of the earlier ones, another configuration, rule file or Apollo, means a whole
check. Most formats are still read whole: that comparison is what makes the shortcut exact for
every transcript format. An OpenClaw session file is read from where the last check stopped when
its first bytes are still those it read (:mod:`apollo.transcript.openclaw_tail`, whose ``Tail`` the
state keeps, with the line each held element is read again from).

The state is a pickle beside the context engine's store, ``<state dir>/apollo/``, one per agent (0600, in a
0700 folder, next to OpenClaw's own transcripts: not in the workspace people push to git); one
that another user could have written is not read. It holds only the streams' own memory: the
attributes that hold their rules (the condenser, the counter…) are the ones this process loads,
a signal of the rules that a list of them holds is saved by its name, and the elements they
still hold are saved as their position in the session and taken from the session when the state
is read again, so neither a user's message nor a tool's output is copied whole. What remains is what the streams keep of text themselves: topic words, short quotes in
verdict reasons, and the agent's latest replies (flattened: the classifier recognises a delivery
copy by them, as a part of one of them, which no digest can tell; and the latest text of its current
turn, which a channel may echo back as the user's); a watched output's tokens are
kept as digests (:class:`apollo.renal.concentrate.LineIndex`), and a cut output's shortened text not
at all. Every such string goes through
:func:`apollo.redact.redact` when saved, as everything Apollo writes for itself (docs/privacy.md):
one that holds a key is saved, and read back, with the key replaced by its mark; the state lists the
strings found to hold none, which the next save need not read again. A later check then
compares the mark where a whole check compares the key (a reply copying that key is not found to
repeat it); sessions that hold a secret, or a word the detectors read as one (a commit hash, a
32-hex id), see that difference. The ids of tool calls awaiting their output, and topic words (their stems)
and repeat words of 16 characters or more, are kept as digests (:func:`apollo.renal.classify.call_key`,
:func:`apollo.words.held`) so that no such mark loses a call, merges two topics or hides a repeat.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from collections.abc import Iterable, Iterator
from pathlib import Path

from apollo.atomic import atomic_output, private_dir
from apollo.records import field_names
from apollo.redact import may_hold, redact
from apollo.transcript.model import is_deferred

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from apollo.renal.classify import Classifier, Tally
    from apollo.renal.fates import FateStream
    from apollo.renal.rules import Signal
    from apollo.transcript.model import Element
    from apollo.workspace import Paths

#: bump when what is saved changes shape
_VERSION = 15
#: values saved as they are even when a rule set them: only containers and objects are matched by identity
_ATOMS = (type(None), bool, int, float, str, bytes)


def resume_path(paths: Paths) -> Path:
    """One state per agent (its current session's): two agents' heartbeats do not undo each other's."""
    return paths.state_dir / "apollo" / f"check-resume-{paths.agent}.pickle"


def _fingerprint(element: Element) -> bytes:
    """The element whole (every field, each tagged and sized), as a digest: the state names elements
    without copying them. Texts are hashed as they are: the element's repr escaped every tool
    output first, a tenth of the time a long session's heartbeat spends reading it again."""
    digest = hashlib.sha256()
    for name in field_names(type(element)):
        value = getattr(element, name)
        data = (value if isinstance(value, str) else repr(value)).encode("utf-8", "surrogatepass")
        digest.update(b"s" if isinstance(value, str) else b"r")
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.digest()


class Chain:
    """A running digest of the elements fed so far, and where each one sits in the session."""

    __slots__ = ("digest", "count", "positions", "fingerprints", "keep_added")

    def __init__(self, digest: bytes = b"", count: int = 0, *, keep_added: bool = False):
        self.digest = digest
        self.count = count
        #: id(element) -> its position, for the elements read in this process (the latest holder of an id wins)
        self.positions: dict[int, int] = {}
        #: position -> fingerprint, of the held elements this process compared and, with ``keep_added``
        #: (a heartbeat's few appended ones), of those added: saving the state needs them again. A whole
        #: session's would cost memory in proportion to it, for the few the state holds.
        self.fingerprints: dict[int, bytes] = {}
        self.keep_added = keep_added

    def add(self, element: Element) -> None:
        fingerprint = _fingerprint(element)
        if self.keep_added:
            self.fingerprints[self.count] = fingerprint
        self.digest = hashlib.sha256(self.digest + fingerprint).digest()
        self.positions[id(element)] = self.count
        self.count += 1

    def through(self, elements: Iterable[Element]) -> Iterator[Element]:
        for element in elements:
            self.add(element)
            yield element


class Resumed:
    """The streams as the last check left them, after ``chain.count`` elements."""

    __slots__ = ("chain", "classifier", "tally", "stream", "redacted", "clean")

    def __init__(self, chain: Chain, classifier: Classifier, tally: Tally, stream: FateStream,
                 redacted: set[str] | None = None, clean: frozenset[str] = frozenset()):
        self.chain = chain
        self.classifier = classifier
        self.tally = tally
        self.stream = stream
        #: the strings that might hold a key read back from the saved state: redacted when they were
        #: saved, so saving them again needs no second reading by the secret detectors
        self.redacted = redacted if redacted is not None else set()
        #: the other strings of the saved state: found to hold no key when they were saved
        self.clean = clean


class Saved:
    """A saved state, read but not yet unpacked: unpacking needs the elements it names."""

    __slots__ = ("digest", "count", "held", "state", "tail", "spots")

    def __init__(self, digest: bytes, count: int, held: dict[int, bytes], state: bytes,
                 tail: tuple[Any, ...] | None = None, spots: dict[int, tuple[Any, ...]] | None = None):
        self.digest = digest
        self.count = count
        #: position -> fingerprint of the elements the streams still hold
        self.held = held
        self.state = state
        #: where the read stopped, for a read of only what is appended (the format's, plain data),
        #: and where each held element is read again from; None when the next read must be whole
        self.tail = tail
        self.spots = spots if spots is not None else {}

    def resume(self, elements: Iterator[Element], classifier: Classifier, stream: FateStream) -> Resumed | None:
        """Consume the elements the saved state was fed; when they are exactly those, pour the
        state into the fresh ``classifier`` and ``stream`` (of the rules this process loaded)."""
        chain = Chain()
        found: dict[int, Element] = {}
        for element in elements:
            if chain.count in self.held:
                found[chain.count] = element
            chain.add(element)
            if chain.count == self.count:
                break
        if chain.count != self.count or chain.digest != self.digest:
            return None
        return self._pour(chain, found, classifier, stream)

    def holds(self, position: int, element: Element) -> bool:
        """Whether ``element`` is the one the state holds at ``position``, whole."""
        return self.held.get(position) == _fingerprint(element)

    def resume_held(self, held: dict[int, Element], classifier: Classifier, stream: FateStream) -> Resumed | None:
        """Pour the state into fresh streams when ``held``, the elements it names read again on their
        own (the session's first ``count`` elements being known unchanged), are exactly those."""
        chain = Chain(self.digest, self.count, keep_added=True)
        for position, element in held.items():
            chain.positions[id(element)] = position
        return self._pour(chain, held, classifier, stream)

    def _pour(self, chain: Chain, found: dict[int, Element], classifier: Classifier,
              stream: FateStream) -> Resumed | None:
        if found.keys() != self.held.keys():
            return None
        for position, element in found.items():
            if is_deferred(element):  # compared with the saved one when it is built (:meth:`holds`)
                chain.fingerprints[position] = self.held[position]
                continue
            chain.fingerprints[position] = _fingerprint(element)
            if chain.fingerprints[position] != self.held[position]:
                return None
        state_reader = _Unpickler(self.state, found, classifier.rules.signals)
        try:
            classifier_state, tally, stream_state = state_reader.load()
            clean = state_reader.load()
        except Exception:  # noqa: BLE001 - a damaged state is no state
            return None
        vars(classifier).update(classifier_state)
        vars(stream).update(stream_state)
        return Resumed(chain, classifier, tally, stream, state_reader.strings, frozenset(clean))


class _Unpickler(pickle.Unpickler):
    def __init__(self, data: bytes, elements: dict[int, Element], signals: dict[str, Signal]):
        import io

        super().__init__(io.BytesIO(data))
        self.elements = elements
        self.signals = signals
        self.strings: set[str] = set()

    def persistent_load(self, pid: Any) -> Element | Signal | str:
        if isinstance(pid, str):  # a string that might hold a key, as it was saved: redacted
            self.strings.add(pid)
            return pid
        if isinstance(pid, tuple):  # a signal of the rules, by its name
            return self.signals[pid[1]]
        return self.elements[pid]


def _rule_attributes(live: Any, fresh: Any) -> set[str]:
    """The attributes ``live`` holds from its rules: the very objects a fresh stream of the same
    rules holds (containers and objects; plain values are saved as they are)."""
    fresh_values = vars(fresh)
    return {attr for attr, value in vars(live).items()
            if fresh_values.get(attr, _ATOMS) is value and not isinstance(value, _ATOMS)}


def _own_state(live: Any, fresh: Any) -> dict[str, Any]:
    """What ``live`` remembers of the elements it was fed: everything but its rules."""
    skip = _rule_attributes(live, fresh)
    return {attr: value for attr, value in vars(live).items() if attr not in skip}


class _Unsaveable(Exception):
    pass


def save(path: Path, key: str, resumed: Resumed, tail: Any = None) -> None:
    """Keep ``resumed`` for the next check; a stream that cannot be saved leaves no state (the next
    check is then a whole one). ``tail``: where the read stopped, when the format can read only what
    is appended next time (``state()``, and ``spot(element)``: where an element is read again from)."""
    import io

    from apollo.renal.classify import Classifier
    from apollo.renal.fates import FateStream
    from apollo.renal.rules import Signal
    from apollo.transcript.model import Element

    classifier, stream, chain = resumed.classifier, resumed.stream, resumed.chain
    signals = classifier.rules.signals
    fresh_stream = FateStream(stream.rules, stream.condenser, stream.count, lang=stream.lang, retain=stream.retain)
    held: dict[int, bytes] = {}
    # what was read back from the last state, and the names of the streams' attributes, are
    # already what redaction makes of them: only the strings of the appended elements are read
    redacted = {text: text for text in (*resumed.redacted, *vars(classifier), *vars(stream))}
    # the strings that hold no key: those the last state kept as such need no second look, and are
    # saved with this state (as references to the strings it holds) for the next check
    known_clean, clean = resumed.clean, set()
    spots: dict[int, tuple[Any, ...]] = {}
    tail_state = tail.state() if tail is not None and tail.position == chain.count else None

    class _Pickler(pickle.Pickler):
        def persistent_id(self, obj: Any) -> int | str | tuple[str, str] | None:
            if type(obj) is str:  # a key in it is saved as its mark, as everywhere Apollo writes
                if obj in clean or obj in known_clean or not may_hold(obj):
                    clean.add(obj)
                    return None
                if obj not in redacted:
                    redacted[obj] = redact(obj)
                return redacted[obj]
            if type(obj) is Signal and signals.get(obj.name) is obj:  # one of the rules (a list of them)
                return ("signal", obj.name)
            if type(obj) is not Element:
                return None
            position = chain.positions.get(id(obj))
            if position is None:
                raise _Unsaveable("an element that was not read from the session")
            held[position] = chain.fingerprints.get(position) or _fingerprint(obj)
            spot = tail.spot(obj) if tail_state is not None else None
            if spot is not None:
                spots[position] = spot
            return position

    buffer = io.BytesIO()
    try:
        pickler = _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
        pickler.dump((_own_state(classifier, Classifier(rules=classifier.rules)), resumed.tally,
                      _own_state(stream, fresh_stream)))
        pickler.dump(frozenset(clean))
    except (_Unsaveable, pickle.PicklingError, TypeError, AttributeError, RecursionError):
        forget(path)
        return
    if spots.keys() != held.keys():  # an element the tail cannot find again: the next read is a whole one
        tail_state, spots = None, {}
    data = pickle.dumps((_VERSION, key, chain.digest, chain.count, held, buffer.getvalue(), tail_state, spots),
                        protocol=pickle.HIGHEST_PROTOCOL)
    private_dir(path.parent)
    with atomic_output(path) as out:
        out.write(data)


def load(path: Path, key: str) -> Saved | None:
    """The saved state for ``key``, or None: no state, another key, a damaged file, or a file that
    is not private to this user."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(handle.fileno())
        if st.st_uid != os.geteuid() or st.st_mode & 0o077:
            return None
        try:
            version, saved_key, digest, count, held, state, tail, spots = pickle.load(handle)
        except Exception:  # noqa: BLE001 - a damaged or foreign state is no state
            return None
    if version != _VERSION or saved_key != key:
        return None
    return Saved(digest, count, held, state, tail, spots)


def forget(path: Path) -> None:
    """Leave no state to resume from: an empty file in its place (read as no state). Written, not
    deleted: every path that removes files is autophagy's (``apollo.autophagy.remove``)."""
    if path.exists():
        with atomic_output(path) as out:
            out.write(b"")
