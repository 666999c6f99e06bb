"""English stemming, shared by the classifier's topic words and the request router, the pattern
of a run of Chinese characters the classifier and the filter share, and the form in which the
check's streams hold a long word.

PyStemmer is the Snowball project's C stemmer: it imports in about a millisecond and stems
several times faster than the pure-Python port, which imports every language it knows.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterator

#: the Chinese characters: the unified ideographs and extension A
_CJK_FIRST, _CJK_LAST = "\u3400", "\u9fff"


@functools.cache
def cjk_run() -> re.Pattern[str]:
    """A run of Chinese characters, compiled once for every module that needs it, and only when
    one does: compiling a range this wide costs a heartbeat about a millisecond, and a text of
    ASCII characters never needs it."""
    return re.compile(f"[{_CJK_FIRST}-{_CJK_LAST}]+")


def cjk_runs(text: str) -> Iterator[re.Match[str]]:
    """The runs of Chinese characters in ``text``; a text of ASCII characters has none, and is not
    searched (so the pattern is not compiled for it)."""
    return iter(()) if text.isascii() else cjk_run().finditer(text)


def all_cjk(text: str) -> bool:
    """``text`` is one run of Chinese characters (``cjk_run().fullmatch``, without compiling it)."""
    return bool(text) and all(_CJK_FIRST <= char <= _CJK_LAST for char in text)


@functools.cache
def _english():  # type: ignore[no-untyped-def]
    import Stemmer

    return Stemmer.Stemmer("english")


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball English stem of a lower-case word ("deploying" -> "deploy")."""
    return _english().stemWord(word)


#: a word this long (a commit hash, an id, a key) is held by the check's streams as its digest: the
#: secret detectors read 20 hex digits as a key (a stemmer may take a few off), and the resume state,
#: which redacts its strings when saved, would save two such words as one mark and compare the mark
#: where a whole check compares the word
HELD_AS_DIGEST = 16


#: the size of :func:`digest64`
DIGEST_BYTES = 8


def digest64(word: str) -> bytes:
    """What the check's saved state keeps of a word instead of the word: 64 bits of its BLAKE2b digest."""
    return hashlib.blake2b(word.encode("utf-8", "surrogatepass"), digest_size=DIGEST_BYTES).digest()


def held(word: str) -> str:
    """``word`` as the classifier's topic words and the filter's repeat history hold it: as it is, or
    from :data:`HELD_AS_DIGEST` characters on "#" and the 16 hex digits of :func:`digest64`. Equal
    words stay equal, no detector reads the digest as a key, and no such word is kept in clear."""
    return word if len(word) < HELD_AS_DIGEST else "#" + digest64(word).hex()
