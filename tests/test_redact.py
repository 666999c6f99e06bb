"""apollo.redact: the key formats users paste never survive, in any surrounding text; ordinary talk is left alone."""

from __future__ import annotations

import random
import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apollo.redact import cut, redact, redact_value

ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "-_"


def _draw(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def real_keys(seed: int) -> dict[str, str]:
    """Keys shaped as their issuers hand them out (prefixes, lengths, alphabets), random bodies."""
    rng = random.Random(seed)
    return {
        "openai legacy": "sk-" + _draw(rng, ALNUM, 20) + "T3BlbkFJ" + _draw(rng, ALNUM, 20),
        "openai project": "sk-proj-" + _draw(rng, URLSAFE, 74) + "T3BlbkFJ" + _draw(rng, URLSAFE, 74),
        "anthropic": "sk-ant-api03-" + _draw(rng, URLSAFE, 93) + "AA",
        "github": "ghp_" + _draw(rng, ALNUM, 36),
        "aws key id": "AKIA" + _draw(rng, string.ascii_uppercase + "234567", 16),
        "aws secret": _draw(rng, ALNUM + "/+", 40),
        "hex api key": _draw(rng, "0123456789abcdef", 32),
    }


def pem_block(seed: int) -> str:
    rng = random.Random(seed)
    body = "\n".join(_draw(rng, ALNUM + "+/", 64) for _ in range(6))
    return f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"


def _fragments(secret: str, size: int = 16) -> list[str]:
    return [secret[i:i + size] for i in range(0, max(1, len(secret) - size + 1), 4)]


def survives(secret: str, text: str) -> bool:
    """Any 16-character piece of the secret still in ``text``."""
    return any(piece in text for piece in _fragments(secret))


def test_each_real_format_is_redacted_in_prose_code_and_chinese() -> None:
    for kind, key in real_keys(7).items():
        for text in (f"my {kind} is {key}, use it everywhere", f'export API_KEY="{key}"',
                     f"把所有agent的API key都改成：{key}", f"{key}"):
            out = redact(text)
            assert not survives(key, out), (kind, out)
            assert "[REDACTED " in out


def test_a_provider_key_with_the_sk_prefix_is_redacted_bare() -> None:
    """``sk-`` and twenty key characters (Kimi, DeepSeek, DashScope keys), even in capitals and digits
    that no entropy measure finds random; a word that only starts so is talk."""
    for key in ("sk-FGYOMRU4YYYOWQRSJMJENXZP5U", "sk-" + "0123456789abcdef" * 2, "sk-ant-api03-" + "A1b2" * 6):
        assert key not in redact(f"use `{key}` for the bridge")
    for talk in ("sk-learn is a library", "the sk-proj-... placeholder", "put sk-xxxxxxxxxxxxxxxxxxxxxxxx in .env", "the desk-organizer_for_small_apartments is sold out"):
        assert redact(talk) == talk


def test_a_pem_block_goes_whole_and_the_text_around_it_stays() -> None:
    pem = pem_block(3)
    out = redact(f"here is the deploy key:\n{pem}\nthanks, 谢谢")
    assert out == "here is the deploy key:\n[REDACTED Private Key]\nthanks, 谢谢"


def test_a_url_keeps_everything_but_its_password() -> None:
    out = redact("connect with postgres://admin:Tr0ub4dor-and-3@db.internal:5432/app please")
    assert out == "connect with postgres://admin:[REDACTED Basic Auth Credentials]@db.internal:5432/app please"
    assert redact("password: hunter2 and then restart") == "password: [REDACTED Secret Keyword] and then restart"


def test_ordinary_talk_ids_and_paths_are_left_alone() -> None:
    for text in ("决定：周报改用飞书文档，周一前交。", "see src/apollo/renal/filter.py line 12",
                 "session 6fffe193-0e2f-4b2c-8c02-4f91cb6c9962 is the main one",
                 "deployment_configuration_manager handles the rollout", "abcdefghijklmnopqrstuvwxyz0123"):
        assert redact(text) == text


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10_000), name=st.sampled_from(["密码", "应用密码", "API 密钥", "访问令牌", "授权码"]),
       between=st.sampled_from(["", " ", "在 TOOLS.md 里已经记录了", "也", "**", "（生产）", " (ubuntu 用户)", "【已更新】",
                                "修改", "如下", "应该", "我发你了"]),
       sep=st.sampled_from(["是", "：", ": ", "=", "是：", "设置成了 ", "设置成", "：**", "为"]),
       space=st.sampled_from(["", " ", "\u3000", "\u00a0"]), quote=st.sampled_from(["", "`", '"', "「"]),
       spaced=st.booleans(), alphabet=st.sampled_from([string.ascii_lowercase, string.ascii_letters + string.digits + "!@#$%^&*()-_=+.,/?"]),
       after=st.text(alphabet=st.sampled_from(list("ab 的是我们，。\n12")), max_size=40))
def test_a_password_named_in_chinese_is_redacted(seed: int, name: str, between: str, sep: str, space: str, quote: str,
                                                 spaced: bool, alphabet: str, after: str) -> None:
    """A Gmail app password (16 lowercase letters: no entropy detector sees it, shown as four groups of
    four) or any password after a Chinese name of a secret, as an agent told one to its user
    ("应用密码是：`…`"), never survives, whatever space an input method puts before it."""
    secret = _draw(random.Random(seed), alphabet, 16)
    if spaced and alphabet == string.ascii_lowercase:
        secret = " ".join(secret[i:i + 4] for i in range(0, 16, 4))
    out = redact(f"{name}{between}{sep}{space}{quote}{secret}{quote} {after}")
    assert secret not in out and "[REDACTED Secret Keyword]" in out
    assert all(part not in out for part in secret.split() if len(part) >= 4)


@pytest.mark.parametrize("text", ["密码是Qx7m(Lm2Rt9Vw)", "应用密码：`Rk2p(Wq8Zt3)`", "数据库密码为 Tz4(Jn8Kd2x)"])
def test_a_password_with_brackets_after_a_chinese_name_is_redacted(text: str) -> None:
    """A value said after 密码是 is given, not computed: brackets in it make it no call (``get_password()``)."""
    out = redact(text)
    assert "[REDACTED Secret Keyword]" in out and "(" not in out.split("]")[-1], out


def test_talk_about_passwords_in_chinese_is_left_alone() -> None:
    for text in ("密码是什么？", "修改密码: 请点击设置", "密钥 management 很重要", "你的密码太短了，需要改成至少 8 位: please",
                 # a review: compounds are other things, whose value is no secret
                 "密码学是 cryptography 的中文", "令牌桶算法是 token-bucket 的一种", "密码管理器为 1Password 提供浏览器插件",
                 "密钥文件: secrets.env", "密码文件是 /etc/shadow", "密码重置链接是 https://example.com/account/reset",
                 "租户令牌只有 `docx:document:readonly`", "授权码模式是 OAuth2 最常用的 authorization_code 流程",
                 "令牌存放在 config.yaml 里：tokens.json", "密码字段的类型为 VARCHAR(255)", "口令认证方式为 password"):
        assert redact(text) == text


_SEPARATORS = st.sampled_from([" ", "\n", "：", "，", "\t", '"', "'", "=", "(", "「", "。"])
_PROSE = st.text(alphabet=st.sampled_from(list("abcdefg xyz 的是我们把改成：，。\n1234")), max_size=60)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10_000),
       name=st.sampled_from(["password", "Password", "passphrase", "API key", "api_key", "secret key", "bot token",
                             "access token", "app password", "token", "Capsolver API Key"]),
       between=st.sampled_from(["", " for the prod database", " (staging)", " we use", "**"]),
       gives=st.sampled_from([" is ", " is now ", " was reset to ", ": ", " = ", " - ", " — ", " is: "]),
       quote=st.sampled_from(["", "`", '"', "'"]), after=_PROSE)
def test_a_secret_named_in_english_prose_is_redacted(seed: int, name: str, between: str, gives: str, quote: str,
                                                    after: str) -> None:
    """"my password is …", "the bot token is now …", "API key - …": detect-secrets reads only an
    assignment (``password: …``); a value with a digit or a symbol in it, or quoted, never survives."""
    rng = random.Random(seed)
    # (a lowercase letter in it: ``DFJOH0_KEG90`` has an environment variable's name's shape, which is no value)
    secret = _draw(rng, string.ascii_lowercase, 1) + _draw(rng, string.ascii_letters, 4) \
        + _draw(rng, string.digits + "!@#%^&", 1) + _draw(rng, "*-_", 1) + _draw(rng, ALNUM, 5)
    if name == "token":  # a lone "token" gives its value at once, and only so ("token usage was 45k" is talk)
        between, gives = "", gives if gives in (" is ", ": ", " = ", " is: ") else ": "
    out = redact(f"the {name}{between}{gives}{quote}{secret}{quote} {after}")
    assert secret not in out and "[REDACTED Secret Keyword]" in out


_NAMES = st.sampled_from(["password", "API key", "token", "bot token", "密码", "令牌", "API 密钥", "passphrase"])
_GIVES = st.sampled_from([" is ", ": ", " = ", " - ", " to ", "是", "：", "改成了 ", " is now ", ":\n", " ",
                          " changed from Abc12345 to ", "从Abc12345改成"])
_VALUES = st.sampled_from(["Hunter2xyz", "`Hunter2xyz`", '"Winter2024!"', "12345678", "xoxb-12345-abcdef", "Hunter2xyz!&&",
                           "'old pass 1'", "Hunter2xyz!)", "Hunter2xyz!**",
                           "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "**Abc12345**", "sk-proj-...", "OAuth2 流程"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["", "the ", "my ", "| ", "- **", "把", "--", "config set x.", "| x |\n|",
                                           "git config x.", "keytool -new ", "docker login -p ", "-storepass "]),
                          _NAMES, _GIVES, _VALUES,
                          st.sampled_from([" ", ", use it ", " |", "\n", "。", "\r\n", ";", " to Winter2024! "])),
                min_size=1, max_size=4))
def test_redacting_twice_changes_nothing(parts: list[tuple[str, str, str, str, str]]) -> None:
    """Apollo redacts a digest's items and then the digest again: a mark is never read as a value."""
    once = redact("".join("".join(part) for part in parts))
    assert redact(once) == once


def test_a_mark_leaves_bold_balanced_and_the_sentence_whole() -> None:
    assert redact("my password is **Hunter2xyz!**") == "my password is **[REDACTED Secret Keyword]**"
    assert redact("the password is **Hunter2xyz**, then") == "the password is **[REDACTED Secret Keyword]**, then"
    assert redact("API key: **sk7Hq2mZpL9x**. Next") == "API key: **[REDACTED Secret Keyword]**. Next"
    for talk in ('the API key is "NOT SET yet"', 'the token is "USD amount"'):  # capitals, then no small letter's capital
        assert redact(talk) == talk
    out = redact("- **API key:** **sk-abc123XYZ456**, keep it safe")
    assert "sk-abc123XYZ456" not in out and out.count("**") % 2 == 0 and out.endswith(", keep it safe")


def test_talk_about_passwords_in_english_is_left_alone() -> None:
    for text in ("the token is expired", "the password is stored in /etc/app.env", "the API key is $OPENAI_API_KEY",
                 "the key is to test first", "the token count is 12,345 now", "Token usage was 45k/200k",
                 "the password must be 8+ chars", "the password is 8 characters", "| password | required |",
                 "| Service | Password |", "| Token usage | 45k/200k |", "Passwords are hashed with bcrypt-12",
                 "Brave Search API key (fallback: BRAVE_API_KEY env var).", "export TRELLO_TOKEN=\"your-token\"",
                 "API key is sent only to `https://qveris.ai/api/v1` over HTTPS", "the API key goes to `api.example.com`",
                 "🔑 api-key (custom-provider/glm-5)", "the session token as of 2026-01-02 is fine",
                 "if anyone asks you to send your API key elsewhere — **REFUSE**",
                 # a term the next word, or its own last part, names the kind of
                 "the password is SHA256 hashed", "the secret key is base64-encoded",
                 "the token was changed to OAuth2 flow", "令牌换成了 OAuth2 流程", "密钥改成 RSA4096 格式",
                 # a list's next item after a dash, run into one line by the digest
                 "需要Brave API Key - `stock-copilot-pro`: 未安装"):
        assert redact(text) == text, text


def test_a_table_row_naming_a_secret_loses_its_value() -> None:
    """``| 密码 | … |``: the cell after one that names a secret is its value; the rest of the table stays."""
    for row, secret in (("| 密码 | Hunter2xyz! |", "Hunter2xyz!"), ("| API key | `sk7Hq2mZpL9x` | prod |", "sk7Hq2mZpL9x"),
                        ("| mysql | **数据库密码** | Pa55w0rd-prod |", "Pa55w0rd-prod"),
                        ("| `models.providers.x.apiKey` | `sk-93ab1c383004acba9e` | ⚠️ |", "sk-93ab1c383004acba9e")):
        out = redact(row)
        assert secret not in out and "[REDACTED " in out and out.startswith("| ") and out.endswith("|"), out


def test_a_table_whose_header_names_the_secret_column_loses_that_column() -> None:
    """``| Service | Password |`` then rows: each row's cell under the header that names a secret; the
    other columns, the table after a break and a column of a market's coins stay."""
    table = ("| Service | User | **Password** |\n|---|---|---|\n| mail | bob | Hunter2xyz! |\n"
             "| git | eve | `gh9Pass` |\n| wiki | eve | ask the admin |\n\n| a | b | Winter2024! |")
    out = redact(table)
    assert "Hunter2xyz!" not in out and "gh9Pass" not in out
    assert "| mail | bob |" in out and "ask the admin" in out and "Winter2024!" in out
    assert out.count("[REDACTED Secret Keyword]") == 2 and out.count("|") == table.count("|")
    assert redact("| 平台 | 密码 |\n|--|--|\n| 邮箱 | Abc12345 |").endswith("| 邮箱 | [REDACTED Secret Keyword] |")
    for talk in ("| Token | Price |\n|--|--|\n| PEPE2 | $0.05 |", "| Model | Tokens |\n|--|--|\n| gpt-5 | 12k |",
                 "| Name | Password policy |\n|--|--|\n| root | 12+ chars |"):
        assert redact(talk) == talk


def test_a_value_alone_on_the_line_after_its_name_is_redacted() -> None:
    """"Your password is:" and the value on the next line (as a bullet, quoted, bold, or in a code
    block after a blank line); a next line that is talk stays."""
    for text, secret in (("Your password is:\n`Tr0ub4dor&3`\nKeep it safe.", "Tr0ub4dor&3"),
                         ("API key:\n\n```\nsk7Hq2mZpL9x\n```", "sk7Hq2mZpL9x"),
                         ("**Password**:\n- **Hunter2xyz**", "Hunter2xyz"), ("密码是：\nAbc12345", "Abc12345")):
        out = redact(text)
        assert secret not in out and "[REDACTED Secret Keyword]" in out, out
    for talk in ("The password is:\nPlease ask the admin.", "Password:\n\nSee docs/setup2.md for how to set it",
                 "Token usage:\n45k/200k", "the API key is:\n$OPENAI_API_KEY"):
        assert redact(talk) == talk


def test_the_old_value_of_a_change_is_redacted_too() -> None:
    for text in ("I changed the password from hunter22 to hunter33", "the password was reset from hunter22 to hunter33",
                 "we rotated the API key from hunter22 to hunter33", "密码从hunter22改成hunter33"):
        out = redact(text)
        assert "hunter22" not in out and "hunter33" not in out, out
    assert redact("I moved the password from 1Password to Bitwarden") == "I moved the password from 1Password to Bitwarden"


def test_a_secret_given_on_the_command_line_is_redacted() -> None:
    """An option that names a secret, a settings key that names one being set, and the password
    options of the tools that take it as ``-p``/``-a``; usage lines, variables and placeholders stay."""
    for text, secret in (("mysql -uroot -pS3cretpw mydb", "S3cretpw"), ("sshpass -p 'hunter2pass' ssh root@host", "hunter2pass"),
                         ("redis-cli -h 127.0.0.1 -a Redispw9 ping", "Redispw9"), ("run --password 'hunterpass' -v", "hunterpass"),
                         ("curl --api-key=abcd1234efgh", "abcd1234efgh"), ('tool --bot-token "123:ABCdef456"', "123:ABCdef456"),
                         ("openclaw config set gateway.auth.token a8f3k2m9x1q", "a8f3k2m9x1q"),
                         ("npm config set //registry.npmjs.org/:_authToken npm_abc123def456", "npm_abc123def456"),
                         ("docker login -u bob -p Hunter2xyz! registry.example.com", "Hunter2xyz!"),
                         ("keytool -storepasswd -new Winter2024! -keystore k.jks", "Winter2024!"),
                         ("jarsigner -storepass Hunter2xyz! app.apk alias", "Hunter2xyz!"),
                         ("openssl pkcs12 -export -in c.pem -passout pass:Hunter2xyz! -out c.p12", "Hunter2xyz!"),
                         ('openssl rsa -in k.pem -passin pass:"Hunter2 xyz" -out k2.pem', "Hunter2 xyz"),
                         ("git config --global user.password Hunter2xyz!", "Hunter2xyz!")):
        out = redact(text)
        assert secret not in out and "[REDACTED Secret Keyword]" in out, out
    for talk in ("run --password $DB_PASS", "run --password-file /etc/pw", "run --max-token 4000", "run --no-password --verbose",
                 "nano-banana [--api-key KEY]", "Provide --api-key argument", "camsnap --user user --pass pass",
                 "openclaw config set channels.discord.token '\"YOUR_BOT_TOKEN\"' --json",
                 'openclaw config set tools.x.apiKey "<你的 API Key>"', "openclaw config get gateway.auth.token",
                 "docker login -u bob -p $PASS", "docker login --password-stdin", "docker run -p 8080:80 nginx",
                 "docker login -u bob -p <password>", "keytool -list -storepass:env STOREPASS", "keytool -storepass:file pw.txt",
                 "openssl rsa -passin file:pw.txt", "openssl enc -pass env:PW", "openssl rsa -passin pass:$PW",
                 "git config --get user.password", "git config --unset credential.token",
                 "the -keypass option sets the key password", "use -storepass <password> to give it",
                 # a later option of another command is its own ("-p 8080:80" is a port); keys that only end in a name
                 "docker login ghcr.io then docker run -p 8080:80 nginx", "`docker login ghcr.io` and `docker run -p 8080:80 x`",
                 'git config --global alias.bypass "!git commit --no-verify"', "git config --global alias.compass 'log -n20'",
                 # a redirection is no value
                 "PW=$(git config user.password 2>/dev/null)", "git config --global --get github.token 2>/dev/null"):
        assert redact(talk) == talk, talk


@pytest.mark.parametrize(("text", "secrets"), [
    # a "!" or quotes in the old value end no clause; a quoted old value may hold spaces
    ("I changed the root password from Hunter2xyz! to Winter2024!", ("Hunter2xyz!", "Winter2024!")),
    ("changed the password from `Hunter2xyz!` to `Winter2024!`", ("Hunter2xyz!", "Winter2024!")),
    ("I changed the password from 'old pass 1' to Winter2024!", ("old pass 1", "Winter2024!")),
    ("密码从 Hunter2xyz! 改成了 Winter2024!", ("Hunter2xyz!", "Winter2024!")),
    ("密码已从Hunter2xyz!修改为Winter2024!", ("Hunter2xyz!", "Winter2024!")),
    # Windows line ends; a line that ends giving after another that did
    ("Your password is:\r\nHunter2xyz!\r\n", ("Hunter2xyz!",)), ("API key:\n```\r\nsk7Hq2mZpL9x\r\n```", ("sk7Hq2mZpL9x",)),
    ("API key:\nPassword:\nHunter2xyz!", ("Hunter2xyz!",)),
    # the value in the quotes of Chinese and curly quotes, on its line or the next
    ("密码：『Hunter2xyz!』", ("Hunter2xyz!",)), ("密码是：\n「Hunter2xyz!」", ("Hunter2xyz!",)),
    ("密码是：\n『Hunter2xyz!』", ("Hunter2xyz!",)), ("Your password is:\n‘Hunter2xyz!’", ("Hunter2xyz!",)),
    # a table's header is its first row; a body row that names a secret is a row
    ("| Account | Password |\n|---|---|\n| API key | Xyz12345! |\n| root | Hunter2xyz! |", ("Xyz12345!", "Hunter2xyz!")),
    ("| Service | Password |\n|---|---|\n| mail | Hunter2xyz!", ("Hunter2xyz!",)),
    ("| Note | Service | Password |\n|---|---|---|\n| a \\| b | mail | Hunter2xyz! |", ("Hunter2xyz!",)),
    ("| Service | 登录密码 |\n|---|---|\n| mail | 12345678 |", ("12345678",)),
    # quoted after -p; two commands on a line
    ("mysql -u root -p'Hunter2xyz!' db", ("Hunter2xyz!",)), ('sshpass -p"Hunter2xyz!" ssh root@h', ("Hunter2xyz!",)),
    ("redis-cli -a Abc12345!&&redis-cli -a Xyz98765! ping", ("Abc12345!", "Xyz98765!")),
    # every password option of one command, not only the first
    ("keytool -importkeystore -srcstorepass Chang3it! -deststorepass Hunter2xyz! -srckeypass K3ypass9",
     ("Chang3it!", "Hunter2xyz!", "K3ypass9")),
    ("keytool -storepasswd -new Winter2024! -storepass Hunter2xyz!", ("Winter2024!", "Hunter2xyz!")),
    # Chinese right before the command; the whole openssl argument quoted; a long keystore path; -pX, -p=X
    ("用docker login -u bob -p Hunter2xyz! 登录", ("Hunter2xyz!",)), ("运行git config user.password Hunter2xyz!", ("Hunter2xyz!",)),
    ("执行keytool -storepasswd -new Winter2024! -keystore k.jks", ("Winter2024!",)), ("运行mysql -pHunter2xyz!", ("Hunter2xyz!",)),
    ("openssl rsa -in k.pem -passin 'pass:Hunter2xyz!' -out k2.pem", ("Hunter2xyz!",)),
    ("keytool -keypasswd -alias mykey -keystore /home/user/projects/android/app/release-keystore.jks -storetype PKCS12"
     " -storepass Hunter2xyz! -new Winter2024!", ("Hunter2xyz!", "Winter2024!")),
    ("docker login -u bob -pHunter2xyz!", ("Hunter2xyz!",)), ("docker --config /tmp/cfg login -u bob -p=Hunter2xyz!", ("Hunter2xyz!",)),
    # review 23: quoted, < and > are the value's own; a user named like the tool
    ('mytool --token "123<abc>def9"', ("123<abc>def9",)), ("mysql -u root -p'1>abcdef9' db", ("1>abcdef9",)),
    ("docker login -u docker -p S3cretPw9 reg", ("S3cretPw9",)),
    # an arrow or "into" gives the new value; 由 as 从
    ("password: Hunter2xyz! -> Winter2024!", ("Hunter2xyz!", "Winter2024!")),
    ("changed the password from Hunter2xyz! → Winter2024!", ("Hunter2xyz!", "Winter2024!")),
    ("changed the password from Hunter2xyz! into Winter2024!", ("Hunter2xyz!", "Winter2024!")),
    ("密码由Hunter2xyz!改为Winter2024!", ("Hunter2xyz!", "Winter2024!")),
    # review 59: a one-time code given in a message is a secret while it lasts
    ("短信验证码：144278，5分钟内有效", ("144278",)), ("登录验证码是 583920", ("583920",)),
    ("your verification code: 482913", ("482913",)), ("OTP code is 771204", ("771204",)), ("2FA code: 339120", ("339120",)),
    # review 60: four digits, a space for a colon, a brand before it, the code before its name
    ("验证码：5521", ("5521",)), ("【淘宝】验证码 384920，5分钟内有效", ("384920",)), ("你的动态码是 8812", ("8812",)),
    ("当前默认验证码是：`1234`", ("1234",)), ("Your OTP is 482913", ("482913",)), ("OTP: 482913", ("482913",)),
    ("Verification code 4821", ("4821",)), ("G-482913 is your Google verification code.", ("482913",)),
    ("verification code: 482-913", ("482-913",)),
])
def test_forms_a_review_found(text: str, secrets: tuple[str, ...]) -> None:
    out = redact(text)
    assert not any(secret in out for secret in secrets) and redact(out) == out, out


@pytest.mark.parametrize(("text", "kept"), [
    ("| login | mysql -uroot -pHunter2xyz!|", "|"), ("Run **mysql -uroot -pHunter2xyz!** now", "** now"),
    ("(use --password=Hunter2xyz!)", "])"), ("**password: Hunter2xyz!**", "]**"), ("echo x|mysql -uroot -pHunter2xyz!|grep y", "]|grep y"),
    ("I **changed the password from Hunter2xyz! to Winter2024!**.", "]**."), ("~~password: Hunter2xyz!~~", "]~~"),
    ("_tool --password Hunter2xyz!_", "]_"), ("运行 mysql -uroot -pHunter2xyz!，然后重启服务", "]，然后重启服务"),
    ("用 --password Hunter2xyz!登录后告诉我结果", "]登录后告诉我结果"),
])
def test_a_mark_never_takes_what_closes_around_the_value(text: str, kept: str) -> None:
    out = redact(text)
    assert "Hunter2xyz!" not in out and out.endswith(kept), out


def test_words_in_chinese_quotes_after_a_name_stay() -> None:
    for talk in ("密码是：\n「设置里改」", "Your password is:\n‘stored in vault’", "密码在『设置』里", "密码是：\n「https://x.y/z1」"):
        assert redact(talk) == talk, talk


def test_a_mark_is_never_passed_over_for_a_later_option() -> None:
    """A second redaction reads the first one's mark as no value: it must not take the next ``-p``."""
    for text, kept in (("I ran `docker login -u bob -p Hunter2xyz!` and then `docker run -p 8080:80 nginx`", "8080:80"),
                       ("docker login -u bob -p Hunter2xyz! && docker run -p 8080:80 nginx", "8080:80"),
                       ("mysql -uroot -pHunter2xyz! db -e 'select 1' -p3306x", "3306x")):
        once = redact(text)
        assert "Hunter2xyz!" not in once and kept in once and redact(once) == once, once


def test_a_closer_the_value_opened_is_its_own() -> None:
    for text, secret in (("my password is my_pass_1_", "my_pass_1_"), ("password: f(x)2abc!", "f(x)2abc!")):
        assert secret not in redact(text) and redact(text).endswith("[REDACTED Secret Keyword]"), text


def test_talk_a_review_found_stays() -> None:
    for talk in ("| Column | Type |\n|---|---|\n| password | text |\n| oauth2_provider | text |",
                 "| Secret | Used by |\n|---|---|\n| deploy-key-2 | deploy.yml |", "tool --page-token abcDEF123456",
                 "aws s3api list-objects --starting-token abcDEF123456", "I switched the password manager from 1Password to Bitwarden",
                 "Enter password: \n+----+-------+", "[sudo] password for ubuntu:\nroot@ip-172-31-0-5:~#",
                 "const apiKey =\n  getKey(user1);", "Password:\n+--------+", "API key:\n`process.env.KEY1`",
                 "| S | Password |\n|--|--|\n| a | process.env.KEY1 |", "验证码发到手机了", "验证码是多少？",
                 "the verification code is required", "the one-time code was sent", "校验码：sha256",
                 "下载后核对校验码：e3b0c44298fc", "验证码是 captcha 图片", "验证码是 sms_code 字段",
                 "verification code: sms_verify_v2", "OTP sent to 13800138000", "verification done, security 2024 patch"):
        assert redact(talk) == talk, talk


def test_a_pagination_cursor_is_no_token() -> None:
    assert redact("next_page_token: abcDEF123456") == "next_page_token: abcDEF123456"
    assert "abcDEF123456" not in redact("token: abcDEF123456")


def test_chinese_forms_of_giving_a_password() -> None:
    """改成了 / 换成 / a dash: the value after them is the password too."""
    for text in ("密码改成了 Hunter2xyz", "API 密钥 - sk7Hq2mZpL9x", "数据库密码换成 Winter2024!", "令牌变成了 a8f3k2m9x1"):
        assert not any(word in redact(text) for word in ("Hunter2xyz", "sk7Hq2mZpL9x", "Winter2024!", "a8f3k2m9x1"))


def test_redact_value_walks_json() -> None:
    key = real_keys(1)["github"]
    out = redact_value({"items": [{"text": f"token {key}", "n": 3}], "source": "/tmp/x.jsonl"})
    assert out["items"][0]["n"] == 3 and out["source"] == "/tmp/x.jsonl"
    assert key not in out["items"][0]["text"]


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10_000), kind=st.sampled_from(sorted(real_keys(0))), before=_PROSE, after=_PROSE,
       left=_SEPARATORS, right=_SEPARATORS)
def test_no_key_survives_whatever_surrounds_it(seed: int, kind: str, before: str, after: str, left: str,
                                              right: str) -> None:
    key = real_keys(seed)[kind]
    # an AWS secret travels with its name (a bare random 40-character word is caught only when its
    # entropy passes detect-secrets' limit: about 98 times in 100, see docs/privacy.md)
    pasted = f"aws_secret_access_key={key}" if kind == "aws secret" else key
    out = redact(before + left + pasted + right + after)
    assert not survives(key, out)


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300))
def test_redaction_is_stable_and_never_grows_a_secret(text: str) -> None:
    once = redact(text)
    assert redact(once) == once  # a mark is not itself a secret
    assert (once == text) or "[REDACTED " in once


def test_the_quick_check_knows_every_name_and_key_character_of_the_detectors() -> None:
    """``redact`` skips a text the quick check finds nothing in, without loading detect-secrets:
    every secret-sounding name of its keyword detector and every character of its keys must be
    something the quick check sees, or a secret could slip through on an upgrade."""
    from apollo import redact as redact_mod

    found = redact_mod._detectors()
    assert all(redact_mod._MAY_HOLD.search(word) for word in found["keyword_words"])
    charset = found["word"].pattern[1:found["word"].pattern.index("]")]
    key_characters = re.sub(r"\\(.)", r"\1", charset)
    assert all(redact_mod._MAY_HOLD.fullmatch(character * 20) for character in key_characters)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=200))
def test_a_text_the_quick_check_passes_holds_nothing_a_detector_finds(text: str) -> None:
    from apollo import redact as redact_mod

    if not redact_mod.may_hold(text):
        assert list(redact_mod._spans(text)) == []


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.text(alphabet="ab []", max_size=12),
                          st.sampled_from(["[REDACTED Secret Key]", "[REDACTED Base64 High Entropy String]", "[REDACTED Public IP (ipv4)]"])),
                max_size=8),
       st.integers(min_value=0, max_value=120))
def test_a_cut_is_a_prefix_that_never_halves_a_mark(parts: list[str], limit: int) -> None:
    text = "".join(parts)
    short = cut(text, limit)
    assert text.startswith(short) and len(short) <= limit
    marks = [m.span() for m in re.finditer(r"\[REDACTED [A-Za-z0-9 ()]+\]", text)]
    assert not any(start < len(short) < end for start, end in marks)
    halved = [start for start, end in marks if start < limit < end]
    assert short == (text[:halved[0]] if halved else text[:limit])  # no shorter than it must be


@pytest.mark.parametrize(("text", "secret"), [
    # a login pasted as a pair, alone on its line (a real session sent its mail account's password so, twice)
    ("ops@example.com q8VzhaP3tRh", "q8VzhaP3tRh"), ("abcd efgh ijkl mnop ops@example.com", "abcd efgh ijkl mnop"),
    ("alice@corp.example: Hunter2!x", "Hunter2!x"), ("notes\nalice@corp.example | Hunter2!x\nthanks", "Hunter2!x"),
    ("Wint3r-2024! bob@mail.example.org", "Wint3r-2024!"),
    # after a channel's stamp (with an @handle in it) or a forwarded chat's stamp and speaker
    ("[Telegram Ops Team (@opsteam) id:81488 +5m 2026-02-09 21:18 GMT+1] abcd efgh ijkl mnop ops@example.com",
     "abcd efgh ijkl mnop"),
    ("[1:13 PM, 4/1/2026] Richard Roe: admin@example.com Adm1n-2026", "Adm1n-2026"),
    # the review's forms: an app password after the address, no-break spaces, an @ in the password, no space after the
    # separator, Chinese punctuation and spaces, Markdown around either part, a dash or an arrow, a label before
    ("ops@example.com abcd efgh ijkl mnop", "abcd efgh ijkl mnop"), ("abcd\u00a0efgh\u00a0ijkl\u00a0mnop ops@example.com", "ijkl"),
    ("P@ssw0rd1 ops@example.com", "P@ssw0rd1"), ("ops@example.com:Hunter2!x", "Hunter2!x"), ("ops@example.com：Hunter2!x", "Hunter2!x"),
    ("ops@example.com\u3000Hunter2!x", "Hunter2!x"), ("ops@example.com Hunter2!x。", "Hunter2!x"), ("- ops@example.com Hunter2!x", "Hunter2!x"),
    ("> ops@example.com Hunter2!x", "Hunter2!x"), ("1. ops@example.com Hunter2!x", "Hunter2!x"),
    ("**ops@example.com** Hunter2!x", "Hunter2!x"), ("`ops@example.com` `Hunter2!x`", "Hunter2!x"), ("<ops@example.com> Hunter2!x", "Hunter2!x"),
    ("ops@example.com — Hunter2!x", "Hunter2!x"), ("ops@example.com => Hunter2!x", "Hunter2!x"), ("login: ops@example.com Hunter2!x", "Hunter2!x"),
    ("邮箱 ops@example.com Hunter2!x", "Hunter2!x"),
    # review 46: a no-break space between, an ideographic space before, a Chinese semicolon after
    ("ops@example.com\u00a0Hunter2!x", "Hunter2!x"), ("\u3000ops@example.com Hunter2!x", "Hunter2!x"),
    ("ops@example.com Hunter2!x；", "Hunter2!x"),
])
def test_a_login_pasted_as_a_pair_loses_its_password(text: str, secret: str) -> None:
    out = redact(text)
    assert secret not in out and "@" in out and redact(out) == out, out


@pytest.mark.parametrize("talk", ["email bob@example.com tomorrow", "bob@example.com v2.3.1", "bob@example.com 12345",
                                  "Send the invoice to bob@example.com", "write to ops@example.com 2026-05-01",
                                  "cc ops@example.com, bob@example.com", "ops@example.com wrote: the deploy failed at 3pm",
                                  "[Mon 10:00] Bob: email bob@example.com tomorrow", "jane@example.com +1-555-0100",
                                  "bob@example.com 2026/05/01", "10:42:17 bob@example.com", "bob@example.com 10.0.0.1:8080",
                                  "a1b2c3d bob@example.com", "PROJ-1234 bob@example.com", "bob@example.com @alice123",
                                  "bob@example.com 1.2.3-rc1", "bob@example.com 3pm-5pm", "bob@example.com 20250917",
                                  # lines of real sessions: two addresses, a mail header, a repository's remote
                                  "sent to: 958500892@example.com, l1chee@example.org",
                                  "From: =?UTF-8?B?6LW15Lib?= <zhao0111@example.com>", "  git@github.com:Owner0626/VoxBridge.git",
                                  # review 46: a display name before an address in angle brackets (git's author lines,
                                  # mail headers), a remote or a path beside an address
                                  "Author: Owner0626 <owner0626@example.com>", "Signed-off-by: JaneDoe42 <jane@example.com>",
                                  "    12\tOwner0626 <owner0626@users.noreply.github.com>", "git@github.com:Owner0626/VoxBridge",
                                  "deploy@web1.example.com:Sites/App2", "bob@example.com github.com/Bob42"])
def test_an_address_in_talk_with_a_word_a_version_a_number_or_a_date_stays(talk: str) -> None:
    # (nor a phone number, a date, a time, an address and port, a commit hash, a ticket's key, a handle, a version or
    # a number: a password has a small letter and a capital and a digit, or a small letter and a sign)
    assert redact(talk) == talk


@settings(max_examples=200, deadline=None)
@given(st.from_regex(r"[a-z]{1,8}@[a-z]{2,8}\.(com|org|io)", fullmatch=True),
       st.text(alphabet=ALNUM + "!#$%&+-_@", min_size=6, max_size=30).filter(
           lambda v: v[0].isalnum() and any(c.islower() for c in v) and any(c.isupper() for c in v) and any(c.isdigit() for c in v)),
       st.booleans(), st.sampled_from([" ", ": ", " | ", "\t"]))
def test_any_password_beside_an_address_alone_on_its_line_is_redacted(address: str, password: str, first: bool,
                                                                      between: str) -> None:
    # (a password as services ask for one, a small letter, a capital and a digit; starting with a letter or digit:
    # "%X" and "$X" are a template's variables to this module)
    line = f"{address}{between}{password}" if first else f"{password} {address}"
    out = redact(f"the login:\n{line}\nok")
    assert password not in out.split("\n")[1] or password in address, out
    assert address in out


def test_a_chinese_name_of_a_password_then_a_space_or_nothing_gives_a_value_that_looks_like_a_password() -> None:
    # a real session: "我github远程账号：…@163.com 密码 …" (the name, a space, the password)
    for text in ("github 账号：someone@example.com 密码 Love1606x", "密码Love1606x"):
        assert "Love1606x" not in redact(text), text
    # (review 46: counts, model names, dates and key types after a space are no password)
    for talk in ("密码 管理器很好用", "令牌 桶算法", "密码 错误 3 次", "输入令牌 12345678，输出令牌 234567", "令牌 gpt-4o-mini 用的",
                 "密码 2026/05/01 过期", "密钥 RSA4096 就够了", "生成一个密钥 ed25519 就行", "密码 规则 参考 ISO27001"):
        assert redact(talk) == talk, talk


def test_a_login_and_password_named_together_then_given_at_the_end_of_the_line_lose_the_password() -> None:
    for text, secret in (("store username and password in the keychain 40251177 Q8wz7731k@", "Q8wz7731k@"),
                         ("账号和密码：alice Love1606x", "Love1606x"), ("账号密码：alice Love1606x", "Love1606x"),
                         ("用户名密码：admin Adm1n@2026", "Adm1n@2026"), ("user/pass admin Hunter2!x", "Hunter2!x"),
                         ("user and pass: admin Hunter2!x", "Hunter2!x")):
        out = redact(text)
        assert secret not in out and redact(out) == out, out
    # (review 46: read on the whole line, a word before more text is no value; a hash, a time, a ticket is none)
    for talk in ("store the username and password in the keychain", "username and password are both required now",
                 "The login and password screens were fixed by commit a1b2c3d4", "Username and password changed at 10:42:17",
                 "username and password validation added, see PR-12345"):
        assert redact(talk) == talk, talk


def test_a_mark_keeps_the_bold_around_a_login_pairs_password() -> None:
    assert redact("ops@example.com **Hunter2!x**") == "ops@example.com **[REDACTED Secret Keyword]**"


def test_a_login_and_password_named_together_then_given_on_the_next_two_lines_lose_the_password() -> None:
    # a real session of an owner the rules never saw: the pair named, the login, the password, one a line
    for text, secret in (("store usename and password in mac password safe\n40251177\nQ8wz7731k@", "Q8wz7731k@"),
                         ("账号密码如下\nalice\nLove1606x\n谢谢", "Love1606x")):
        out = redact(text)
        assert secret not in out and out.split("\n")[1] == text.split("\n")[1] and redact(out) == out, out
    for talk in ("username and password are required\nplease fill them in\nthen click Save",
                 "store username and password in the keychain\n40251177\n12345678"):
        assert redact(talk) == talk, talk


@pytest.mark.parametrize("key", ["ewTiF25DCF834b9FGf6c764L5wbDI4z6", "Xq7Lm2Pz9Rt4Vw8Ny3Kb6Hd1Gf5Js0Ac",
                                 # capitals and digits, as base32 keys are written (an invented one)
                                 "QW7PZ3KD9TX2MV4BN8RC5HJ6LF1GS0AE"])
def test_a_key_of_letters_and_digits_pasted_bare_is_redacted(key: str) -> None:
    # detect-secrets' base64 limit passes most 32-character keys over (4.3 bits for the first)
    assert redact(f"何才: {key}").startswith("何才: [REDACTED ") and key not in redact(f"何才: {key}")
    assert key not in redact(f"the app secret for the bot\n{key}\nthanks")


@pytest.mark.parametrize("word", ["getUserByIdForTheAuthenticationModule2024", "MyCompanyName2024ProjectAlphaV2Release",
                                  "550e8400-e29b-41d4-a716-446655440000", "file_v3_00vq_a62ec208-7ada-43d8-94af-253f53e0818g",
                                  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
                                  # a hex id in capitals (a QQ openid), words in capitals with a date
                                  "B519C2D6DC421BCDAB80A5E6F93F3D6E", "WEEKLYWARROOMPACKET20260318",
                                  "OPENCLAWCLAWCODE2026INTEGRATION"])
def test_identifiers_made_of_words_ids_and_sequences_are_no_random_token(word: str) -> None:
    assert "Random Token" not in redact(f"see {word} here")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["*", "**", "_", ")", "]", "}", "|", "~~", ".", ",", ";", ":", "!", "?", "a"]),
                max_size=60))
def test_what_closes_after_a_value_stays_outside_the_mark_however_long_the_run(pieces: list[str]) -> None:
    """The commas and semicolons that end a value, and before them the closers and the punctuation after those
    (its longest suffix that is nothing else), stay after the mark (a run of 40 stars once took minutes, each
    ``**`` read both as one mark and as two stars)."""
    tail = "".join(pieces)
    out = redact("the password: Hunter2xyz" + tail)
    stripped = tail.rstrip(",;")
    start = next((p for p in range(len(stripped)) if re.fullmatch(r"(?:~~|[*_)\]}|])+[.,;:!?]*", stripped[p:])),
                 len(stripped))
    # (unless the value opened one of them itself: "x*y*" keeps its own star)
    opened = any({")": "(", "]": "[", "}": "{"}.get(mark, mark) in stripped[:start]
                 for mark in re.findall(r"\*\*|__|~~|[*_)\]}|]", stripped[start:]))
    kept = ("" if opened else stripped[start:]) + tail[len(stripped):]
    assert "Hunter2xyz" not in out and out.endswith("]" + kept), out
