"""Secrets out of everything Apollo writes for itself (renal snapshots, the HTML report, digests).

Users paste API keys into conversations ("把所有agent的API key都改成：…") and push their
workspaces to git, so a copy Apollo keeps must not carry them in clear. The patterns are
detect-secrets' own, not a list kept here: every regex-based detector it ships (AWS, GitHub,
OpenAI, Slack, Stripe, JWT, basic-auth URLs, private key headers, …), its keyword detector
(``password: …``, ``api_key=…``) and its two entropy detectors (base64 above 4.5 bits, hex above
3 bits per character), applied to unquoted words too because prose has no quotes. A private key
header takes its whole PEM block with it; a URL keeps everything but its password. UUIDs and
sequences (detect-secrets' own heuristics) are not secrets.

Speed (callers such as the compact digest redact a lot): the detectors load once per process;
text is read line by line, and a line without a word of 20+ key characters, a ``://``, a key
header or a secret-sounding name costs a few substring searches; otherwise the named detectors
read only a window around each such word, so the cost stays linear in the text (figures in
``docs/privacy.md``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

#: typing is imported only by type checkers: the heartbeat imports this module on every run
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: what replaces a secret: says what it was, never what it was worth
MARK = "[REDACTED {kind}]"
#: the shortest word (of detect-secrets' base64 charset, URL-safe included) read as a possible key
_WORD_MIN = 20
#: what marks a line as worth the named detectors besides a long word: a URL (credentials in it), a key header
_HEADERS = "://|PRIVATE KEY|PuTTY"
#: which finding names a mark when several overlap: named formats (rank 0) first
_RANK = {"Secret Keyword": 1, "Base64 High Entropy String": 2, "Hex High Entropy String": 2, "Random Token": 2}
#: a word of letters and digits alone this long, mixing capitals, small letters and digits (at least
#: ``_TOKEN_EACH`` of each) above ``_TOKEN_ENTROPY`` bits a character, is a key pasted bare: detect-secrets'
#: base64 limit (4.5 bits) passes most 32-character keys over (a Feishu app secret a user pasted alone, "何才:
#: ewTi…", 4.3 bits, stood in clear in a digest); not an identifier made of words (a run of ``_TOKEN_WORD`` letters
#: of one case: "getUserByIdForTheAuthenticationModule2024"), nor hashes (one case), UUIDs, ids with separators.
#: Capitals and digits alone, as base32 keys are written ("bk_SNHG…", an API key a user pasted, stood in clear in a
#: digest), with at least ``_TOKEN_BASE32_DIGITS`` digits: a hex id of capitals stays (its entropy is under the limit)
_TOKEN_MIN = 24
_TOKEN_EACH = 2
_TOKEN_BASE32_DIGITS = 4
_TOKEN_ENTROPY = 4.0
_TOKEN_WORD = 6
#: names of a secret in Chinese, which detect-secrets' keyword detector (English and Spanish names)
#: does not know: "应用密码是：`…`", "API 密钥: …", "**密码**：…", "数据库密码（生产）：…", "这个密码在 TOOLS.md
#: 里记录了：…". Only their assignment form is read: the name, not the start of another thing's name
#: (密码学, 密钥文件, 令牌桶, 令牌数, 密码重置链接: ``_CJK_COMPOUNDS``), then at most 20 characters of the same
#: clause and no quotation (租户令牌只有 `docx:document:readonly` names a scope), then 是/为/:/=, "set to" or
#: "changed to" (设成, 改成, 换成, 变成, 设为, 改为, 了 after any of them); then a value of six or more printable
#: characters, or the four groups of four letters an app password is shown as ("密钥 management" is talk).
#: After a dash (``API 密钥 - …``) the value must look like one (``_SHAPED``: "API 密钥 - required" is talk); after
#: a space or nothing (``密码 Love1606x``, ``密码Love1606x``) like a password (``_PASSWORD_LIKE``: "输入令牌 12345678",
#: "令牌 gpt-4o-mini", "密钥 RSA4096" are counts and names).
_CJK_NAMES = ("密码", "密钥", "秘钥", "口令", "令牌", "授权码")
_CJK_COMPOUNDS = ("学", "管理", "文件", "桶", "重置", "字段", "认证", "模式", "存放", "位置", "算法", "链接", "策略",
                  "强度", "规则", "长度", "类型", "格式", "生成", "加密", "哈希", "机制", "协议", "数", "用量", "消耗")
_CJK_NAMED = rf"(?:{'|'.join(_CJK_NAMES)})(?!{'|'.join(_CJK_COMPOUNDS)})"
_CJK_GIVES = r"(?:是|[设改]为|为|[设改换]成|设置成|设置为|变成)了?"
#: an app password as Google shows it: four groups of four letters (a value of several words, all secret)
_APP_PASSWORD = r"[a-z]{4}(?:[ \u00a0][a-z]{4}){3}(?![A-Za-z0-9])"
#: the characters of a value (printable ASCII but quotes and backquote), and the longest one a pattern
#: reads: bounds every look at the rest of a run, so that a long line without spaces costs linear time
#: (a longer value is taken to the end of its run by :func:`_keyword_spans`)
_CHARS, _LONGEST = r"[!#-&(-_a-~]", 200
#: a value the next word, or its own last part, says the kind of is a term, not a secret: "令牌换成了
#: OAuth2 流程", "the password is SHA256 hashed", "the secret key is base64-encoded"
_TERM = (r"(?i:hash(?:ed|ing)?|encod(?:ed|ing)|encrypt(?:ed|ion)|flow|format|protocol|algorithm|compatible|based"
         r"|auth(?:entication)?|standard|signature|signed|scheme|cipher|mode|grant|spec)(?![A-Za-z])"
         r"|流程|协议|格式|加密|编码|认证|算法|模式|标准|签名|方式|规范|授权|哈希")
#: what no value is: a mark this module wrote (redacting twice changes nothing), a version (``v2.3.1``,
#: ``OAuth2.0``), a date; and in English and tables (``_NOT_PROSE_VALUE``) neither a path, a URL, a
#: variable or template, an environment variable's name (``BRAVE_API_KEY``), a placeholder
#: (``your-token``, ``sk-xxxx``, ``sk-proj-...``, OpenClaw's own ``__OPENCLAW_REDACTED__``) nor an e-mail address
_NOT_VALUE = rf"(?!\[REDACTED )(?![A-Za-z]*v?\d+(?:\.\d+)+(?!{_CHARS}))(?!\d{{4}}-\d\d-\d\d)"
_NOT_PROSE_VALUE = (rf"{_NOT_VALUE}(?![/~.$<{{%])(?![A-Za-z][A-Za-z0-9+.-]*://)(?![A-Z][A-Z0-9]*_[A-Z0-9_]*(?!{_CHARS}))"
                    rf"(?!{_CHARS}{{0,{_LONGEST}}}?(?i:your|example|placeholder|xxxx|redacted|\.\.\.|…))"
                    rf"(?![^\s@`'\"]{{1,64}}@[A-Za-z0-9-]+\.[A-Za-z.]+(?!{_CHARS}))")
_VALUE = (rf"{_NOT_VALUE}(?!{_CHARS}{{0,{_LONGEST}}}?[-_](?:{_TERM}))"
          rf"{_CHARS}{{6,{_LONGEST}}}+(?![ \t\u3000]*(?:{_TERM}))")
#: a value that looks like one without quotes: a digit or one of ``!#$%&+@^~`` in it (bold's ``**`` is no sign)
_SHAPED = rf"{_NOT_PROSE_VALUE}(?={_CHARS}{{0,{_LONGEST}}}?[0-9!#$%&+@^~]){_VALUE}"
#: a value that looks like a password as services ask for one, where nothing but its shape says it is one: a small
#: letter and a capital and a digit, or a small letter and a sign; not another address ("a@x.com, b@y.com"), a mail
#: header's encoded name ("=?UTF-8?B?…?="), nor a path ("owner/repo", "github.com/Bob42")
_PASSWORD_LIKE = (r"(?![@#])(?!=\?)(?![^\s:|,]{0,63}@[A-Za-z0-9-]+\.[A-Za-z])(?![!-~]{0,63}/)"
                  r"(?=[!-~]{0,63}[a-z])(?:(?=[!-~]{0,63}[A-Z])(?=[!-~]{0,63}[0-9])|(?=[!-~]{0,63}[!#$%&*+?@^~]))")
#: a quoted value: a host or file name is not one (``sent only to `api.example.com` ``), nor a plain
#: word ("the token is `expired`", `undefined`, "NOT SET yet"): it needs a digit or sign, a capital
#: after a small letter, or twelve characters (a passphrase, spaces and all: "my passphrase is
#: "correct horse battery staple""). Each look runs once over at most ``_LONGEST`` characters, none
#: inside another.
_IN_QUOTES = r"[^\n`'\"”’]"
#: a digit or sign in a quoted value; after a dash it is needed ("API Key - `stock-copilot-pro`" is a
#: list's next item, run into one line by the digest)
_SIGNED = rf"(?={_IN_QUOTES}{{0,{_LONGEST}}}?[0-9!#$%&+@^~])"
_QUOTED = (rf"{_NOT_PROSE_VALUE}(?!(?:[A-Za-z][A-Za-z0-9-]*\.)+[A-Za-z]{{2,}}[`'\"”’])"
           rf"(?:{_SIGNED}|(?=[^a-z\n`'\"”’]{{0,{_LONGEST}}}+[a-z][^A-Z\n`'\"”’]{{0,{_LONGEST}}}+[A-Z])"
           rf"|(?={_IN_QUOTES}{{12}}))"
           rf"{_IN_QUOTES}{{6,{_LONGEST}}}+(?=[`'\"”’])")
#: a number is no token ("Set max token to 100000", "Input token: 12,345": a model's tokens)
_NUMBER = rf"[0-9][0-9,._]*[kKmMbB]?(?!{_CHARS})"
#: (the three keyword patterns are compiled with the detectors, when a text needs them: the heartbeat
#: imports this module, and compiling them costs more than the rest of its imports)
_CJK_KEYWORD = (
    rf"{_CJK_NAMED}[^\n。！？!?，,；;:：=`'\"“”‘’「」『』]{{0,20}}?(?:{_CJK_GIVES}|[:：=]|(?P<dash>[ \t]?[-–—][ \t])"
    r"|(?P<space>[ \t\u3000]*)(?=[A-Za-z0-9]))"
    r"[ \t\u3000\u00a0:：]*(?:\*\*|__)?[ \t\u3000\u00a0]*[`'\"“‘「『]?[ \t\u3000\u00a0]*"
    rf"(?P<value>{_APP_PASSWORD}|(?(dash){_SHAPED}|(?(space){_PASSWORD_LIKE}{_SHAPED}|{_VALUE})))")
#: names of a secret in English prose, where detect-secrets reads only an assignment (``password: …``):
#: "my password is …", "the bot token is now …", "API key - …", "changed the passphrase to …", and in
#: JSON with a name it does not spell (``"botToken": "…"``). A lone "key" or "secret" is talk ("the key
#: is to test first", "the secret is practice"). A lone "token" gives its value only with ``:``, ``=``,
#: "is" or 是 right after it ("token usage was 45k/200k"), and no token is a number. Between the name and
#: what gives the value, at most 40 characters of the same clause (a dot only inside a word:
#: "the password for root@10.0.0.5 is …"), up to the first verb (``_EN_VERB``); what gives it: is,
#: was, are, is now, (re)set/changed/updated/rotated to, to, now, ``:``, ``=``, a dash, or a Chinese
#: verb ("API key 改为 …"). Then a value that
#: looks like one: quoted (``_QUOTED``) or ``_SHAPED``, or an app password. A real session had
#: "ElevenLabs API key: …" and "**Capsolver API Key**: …" in clear, another
#: ``| `models.providers.dashscope.apiKey` | `sk-…` |``.
_EN_NAMES = (r"pass(?:word|wd|phrase|code)|(?:api|access|secret|private|license|app)[ _-]?key|client[ _-]?secret"
             r"|app[ _-]?password|one[ -]time[ _-]?password")
_EN_TOKENS = r"(?:api|access|auth|bot|bearer|refresh|session|personal access)[ _-]?token"
_EN_NAMED = rf"(?i:(?<![A-Za-z])(?:{_EN_NAMES}|(?P<token>{_EN_TOKENS}))(?![A-Za-z]))[`'\"]?"
_EN_GIVES = (r"(?:(?<![A-Za-z])(?i:(?:(?:is|was|are|has[ \t]+been)[ \t]+)?(?:now[ \t]+)?(?:re)?(?:set|changed|updated|rotated)"
             rf"(?:[ \t]+from[ \t]+[^\s]{{1,{_LONGEST}}}?)?[ \t]+to|(?:is|was|are)(?:[ \t]+now)?|to|now)(?![A-Za-z])|[:：=]|(?<=[ \t])(?P<dash>[-–—])(?=[ \t])|{_CJK_GIVES})")
#: the clause between a name and its value stops at the first verb that could give one: a value
#: passed over there ("password is `<…>`") does not make a later "is" give the name's value
_EN_VERB = r"(?<![A-Za-z])(?i:is|was|are|to|now)(?![A-Za-z])|是|为"
#: a token that names where a listing goes on (``next_page_token: …``) is a cursor, not a secret
_CURSOR = "".join(rf"(?<!(?i:{word})[_-])" for word in ("page", "next", "continuation", "sync", "cursor"))
_EN_KEYWORD = (
    rf"(?:{_EN_NAMED}(?:(?!{_EN_VERB})(?:[^\n.!?,;:=`'\"“”‘’]|\.(?=[^\s.]))){{0,40}}?{_EN_GIVES}"
    rf"|(?<![A-Za-z]){_CURSOR}(?P<lone>(?i:token))[`'\"]?[ \t]*(?:[:：=]|(?i:is)(?![A-Za-z])|是))"
    rf"[ \t:]*(?:\*\*|__)?[ \t]*(?P<quote>[`'\"“‘])?"
    rf"(?P<value>(?(quote)(?(dash){_SIGNED}|){_QUOTED}|(?(token)(?!{_NUMBER})|)(?(lone)(?!{_NUMBER})|)"
    rf"(?:{_APP_PASSWORD}|[a-z]{{16}}(?![A-Za-z0-9])|{_SHAPED})))")
#: a one-time code a message gives ("验证码：144278", "【淘宝】验证码 384920，…", "你的动态码是 8812", "Your OTP is 482913",
#: "2FA code: 339120", "Verification code 4821", "G-482913 is your Google verification code"): four to eight digits (or
#: three and three with a dash) after its name, or before "is your … code"; only digits, so talk about codes stays
#: ("验证码是 captcha 图片", "the verification code expired"); not 校验码, a checksum
_CODE_NAMES = ("验证码", "动态码", "动态密码", "短信码", "verification", "confirmation", "one-time", "one time", "2fa", "otp",
               "login code", "security code", "sms code")
_CODE_VALUE = r"(?P<value>\d{3}-\d{3}|(?:[A-Z]-)?\d{4,8})(?![\d-])"
_CODE_KEYWORD = (
    r"(?:(?:验证码|动态码|动态密码|短信码)[^\n。！？!?，,；;\d]{0,6}?(?:是|为|[:：=])?"
    r"|(?i:(?<![A-Za-z])(?:(?:verification|confirmation|one[ -]time|2fa|otp)(?:[ _-]?(?:code|pin|passcode))?"
    r"|(?:login|security|sms)[ _-]?(?:code|pin|passcode))"
    r"(?![A-Za-z]))[^\n.!?,;\d]{0,12}?(?i:is|:|=)?)"
    rf"[ \t\u3000:：]*[`'\"]?{_CODE_VALUE}")
_CODE_BEFORE = rf"(?<![\w-]){_CODE_VALUE} (?i:is your [\w ]{{0,40}}?(?:verification|security|login|confirmation) code)"
#: a table's row whose cell names a secret, and says nothing after the name but a qualifier in
#: brackets ("| Password policy |" is not one): the next cell, whole, is its value if it looks like one
#: (``| 密码 | … |``, ``| API key | `…` |``; "| API key | 1Password vault |" is talk)
_TABLE_KEYWORD = (
    rf"\|[^|\n]*(?:{_EN_NAMED}|{_CJK_NAMED})[ \t*_`:：]*(?:[（(][^)）|\n]*[)）])?[ \t*_`:：]*\|"
    rf"[ \t]*(?:\*\*|__)?(?P<quote>[`'\"])?"
    rf"(?P<value>(?(quote){_QUOTED}|(?(token)(?!{_NUMBER})|){_SHAPED}))[`'\"]?(?:\*\*|__)?[ \t]*(?=\|)")
#: a change of a secret ("changed the password from X to Y", "the password for root was reset from X to Y",
#: "密码从X改成Y", "密码已从X修改为Y", "密码由X改为Y", "from X → Y"): both values when they look like one as in
#: prose (a "!" in them ends no clause here). Only a
#: change of the secret itself: the name, then at most "for/of/on <word>", then "from" ("switched the
#: password manager from 1Password to …" and "changed the password policy from 8chars to 12chars" change
#: something else); the verb before the name or right before "from"
_CHANGED = r"(?i:chang|rotat|updat|switch)(?:e|ed|ing)|(?i:reset)(?:ting)?"
_FROM = (rf"(?:(?<![A-Za-z])(?P<verb>{_CHANGED})(?![A-Za-z])[^\n.!?;]{{0,40}}?)?{_EN_NAMED}"
         rf"(?:[ \t]+(?i:for|of|on)[ \t]+[^\s]{{1,40}}?)?[ \t]+"
         rf"(?(verb)|(?:(?i:was|were|is|has[ \t]+been|got)[ \t]+)?(?:{_CHANGED})[ \t]+)(?i:from)[ \t]+")
_CHANGE_VALUE = rf"(?P<quote>[`'\"“])?(?P<value>(?(quote){_QUOTED}|{_SHAPED}))"
_TO = r"(?:(?i:to|into)(?![A-Za-z])|->|→|=>)"
_FROM_KEYWORD = rf"{_FROM}{_CHANGE_VALUE}(?=[`'\"”]?[ \t]+{_TO})"
_FROM_TO_KEYWORD = (rf"{_FROM}(?:[`'\"“][^\n`'\"”]{{1,{_LONGEST}}}+[`'\"”]|[^\s`'\"”]{{1,{_LONGEST}}}+)[ \t]+{_TO}[ \t]+"
                    rf"{_CHANGE_VALUE}")
#: "password: X -> Y", "API key：X → Y": the new value after the arrow (the old one is the name's value)
_ARROW_KEYWORD = (rf"{_EN_NAMED}[^\n.!?,;:=`'\"“”‘’]{{0,40}}?[:：=][ \t]*[`'\"“]?[^\s`'\"”]{{1,{_LONGEST}}}+[`'\"”]?"
                  rf"[ \t]*(?:->|→|=>)[ \t]*{_CHANGE_VALUE}")
#: a login and its password named together, then given together at the end of the line: "store username and
#: password in the keychain 40251177 Q8wz7731k@", "账号和密码：alice Love1606x", "账号密码：alice Love1606x", "user/pass
#: admin Hunter2!x" (a real session of an owner the rules never saw gave them so): the last of the two values, when
#: it looks like a password (read on the whole line, at most ``_LOGIN_LONGEST`` characters)
_PAIR_NAMED = (r"(?i:user(?:[ _-]?name)?|usename|login|account|账号|账户|用户名)[ \t]*(?i:and|&|/|和|与|、)?[ \t]*"
               r"(?i:pass(?:word|wd)?|密码)(?![A-Za-z])")
_PAIR_KEYWORD = (rf"{_PAIR_NAMED}[^\n]{{0,60}}?[ \t:：]+[^\s]{{1,64}}[ \t\u3000]+"
                 rf"(?P<value>{_PASSWORD_LIKE}{_SHAPED})[ \t\u3000]*[。！]?[ \t]*\r?$")
_CJK_FROM = rf"{_CJK_NAMED}[^\n。！？，,；;]{{0,10}}?[从由][ \t]*"
_CJK_TO = r"(?:[设改换变]成|[设改]为|修改为|修改成|更改为|更新为|到)了?"
_CJK_FROM_KEYWORD = rf"{_CJK_FROM}[“\"'`「]?(?P<value>{_SHAPED})(?=[”\"'`」]?[ \t]*{_CJK_TO})"
_CJK_FROM_TO_KEYWORD = (rf"{_CJK_FROM}(?:[“\"'`「][^\n”\"'`」]{{1,{_LONGEST}}}+[”\"'`」]|{_CHARS}{{1,{_LONGEST}}}+)[ \t]*{_CJK_TO}[ \t]*[“\"'`「]?"
                        rf"(?P<value>{_SHAPED})")
#: a secret given on a command line, quoted or looking like one as in prose (not a variable, template,
#: placeholder, number, a usage line's ``KEY`` or the next option; "Provide --api-key argument" and a
#: manual's ``--password admin`` are talk), up to a shell's separator (``|;&)``) or a closing ``*``: an
#: option that names one (``--password 'X'``, ``--api-key=X``, ``--bot-token "X"``; not a listing's
#: cursor, ``--page-token``, ``--starting-token``), the Java tools' ``-storepass X``/``-keypass X`` and
#: openssl's ``-passin pass:X``, or a settings key that names one, set (``openclaw config set
#: gateway.auth.token X``, ``npm config set //registry/:_authToken X``, ``git config user.password X``)
_CLI_NAMES = (r"pass(?:word|wd|phrase)?|(?:api|access|secret|private|auth|app)[_-]?key|(?:[a-z]+[_-]?)?token"
              r"|(?:client[_-]?)?secret")
_CLI_CURSOR = r"(?!(?:[A-Za-z0-9]+[_-])*(?i:page|next|starting|continuation|sync|cursor)[_-]?token)"
#: a command line's value: printable ASCII but quotes and a shell's separators (``|;&)*``); unquoted,
#: never a redirection (``2>/dev/null``)
_CLI_CHARS = r"[!#-%(+-:<-_a-{}~]"
_CLI_VALUE = (rf"(?P<quote>['\"])?(?!-)(?!{_NUMBER})(?![A-Z][A-Z_-]*(?![a-z0-9]))"
              rf"(?P<value>(?(quote){_NOT_PROSE_VALUE}{_IN_QUOTES}{{6,{_LONGEST}}}+(?=['\"])"
              rf"|(?!\d*[<>]){_NOT_PROSE_VALUE}(?={_CLI_CHARS}{{0,{_LONGEST}}}?[0-9!#$%+@^~]){_CLI_CHARS}{{6,{_LONGEST}}}+))")
#: where a command begins: not inside a word of Latin letters (Chinese may run right up to it: 用docker login …)
_CLI_START = r"(?<![A-Za-z0-9_-])"
_CLI_KEYWORD = (
    rf"(?:{_CLI_START}-{{1,2}}(?!-){_CLI_CURSOR}(?:[A-Za-z0-9]+-){{0,5}}(?i:{_CLI_NAMES})(?:[ \t]+|=)"
    rf"|{_CLI_START}-(?:(?:src|dest)?(?:store|key)pass[ \t]+|pass(?:in|out)?[ \t]+['\"]?pass:)"
    rf"|{_CLI_START}(?:(?i:config)(?::set|[ \t]+set)|git[ \t]+config)[ \t]+(?:-{{1,2}}(?!-)(?!get)\w[\w-]{{0,40}}[ \t]+){{0,5}}"
    rf"['\"]?(?:[\w.:/@-]{{0,{_LONGEST}}}[.:/_-])?(?i:{_CLI_NAMES})['\"]?(?:[ \t]+|=))" + _CLI_VALUE)
#: the password options of the tools that take it by an option naming no secret (``mysql -pX``, ``mysql
#: -p'X'``, ``sshpass -p X``, ``redis-cli -a X``, ``docker login -p X``, ``keytool … -new X``): read only
#: around the tool's name, and only the option's first appearance after it (a later ``docker run -p
#: 8080:80`` is a port; a mark already written is never passed over for the next one)
_CLI_TOOLS = ("mysql", "mariadb", "sshpass", "redis-cli", "docker", "keytool")


def _first(command: str, option: str, name: str, most: int = 120) -> str:
    """From a command's start to the first ``option`` after it in the same command, which ends at a
    shell's separator, a backquote or the tool's ``name`` again before a word ("… then docker run -p
    8080:80"; not the user ``-u docker -p …``)."""
    return rf"{command}(?=[ \t])(?:(?![ \t](?:{option}|{name}[ \t]+[a-z]))[^\n|;&`]){{0,{most}}}?[ \t]{option}"


_DOCKER_LOGIN = r"docker[ \t]+(?:--config[ \t=]+[^\s|;&`]+[ \t]+)?login"
_TOOL_KEYWORD = (
    rf"{_CLI_START}(?:{_first('(?:mysql(?:dump|admin)?|mariadb(?:-dump)?)', '-p', '(?:mysql|mariadb)')}(?=\S)"
    rf"|sshpass[ \t]+-p[ \t]*|{_first('redis-cli', '-a', 'redis-cli')}[ \t]+"
    rf"|{_first(_DOCKER_LOGIN, '-p', 'docker')}(?:[ \t]+|=)?"
    rf"|{_first('keytool', '-new', 'keytool', 180)}[ \t]+)" + _CLI_VALUE)
#: a table whose header (its first row) names a secret's column (``| Service | DB Password |``, ``| 平台 |
#: 登录密码 |``, plural too): that column's cell in each row below it, when it looks like a value as in a
#: row that names its secret (``_TABLE_KEYWORD``). A lone "Token" or "Secret" column lists a market's
#: coins, a model's counts or the names of a repository's secrets
_HEADER_CELL = (rf"[ \t]*(?:\*\*|__)?`?(?:(?i:(?:[a-z]+[ _-]){{0,2}}(?:{_EN_NAMES}|{_EN_TOKENS})s?)(?![A-Za-z])"
                rf"|[\u4e00-\u9fff]{{0,4}}{_CJK_NAMED})"
                rf"(?:[ \t]*[（(][^)）|\n]*[)）])?`?(?:\*\*|__)?[ \t]*")
#: a member access (``process.env.KEY1``, ``config.auth.token2``) names where a value is, it is none
_REFERENCE = r"(?![A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(?![^\s`'\"”|*]))"
_VALUE_CELL = (rf"[ \t]*(?:\*\*|__)?(?P<quote>[`'\"])?{_REFERENCE}(?P<value>(?(quote){_QUOTED}|{_SHAPED}))"
               rf"[`'\"]?(?:\*\*|__)?[ \t]*")
#: a name that gives its value at the end of a line ("Your password is:", "**API key**:", "Token:",
#: "密码是："), the value alone on the next line, or on the first line after at most two blank or fence
#: lines (bare, as a list item or a quote, quoted, in ‘…’, 「…」 or 『…』, or bold); a value has a letter or digit (a table's
#: border is none). Not a terminal's prompt ("Enter password:", "[sudo] password for …:"): what follows
#: it is the program's output, the password is never echoed
_GIVES_AT_END = (
    rf"(?:{_EN_NAMED}(?:(?:(?!{_EN_VERB})[^\n.!?,;:=`'\"“”‘’]){{0,40}}?(?<![A-Za-z])(?i:is|was|are)(?![A-Za-z])"
    rf"|[^\n.!?,;:=`'\"“”‘’]{{0,40}}?[:：=])|(?<![A-Za-z]){_CURSOR}(?i:token)[ \t]*[:：=]"
    rf"|{_CJK_NAMED}[^\n。！？!?，,；;:：=`'\"“”‘’「」]{{0,20}}?(?:{_CJK_GIVES}|[:：=]))[ \t*_:：\u00a0\u3000]*\Z")
_PROMPT = r"[ \t]*(?:\[sudo\]|(?i:enter|re-?enter|retype|confirm|type)\b)"
_VALUE_LINE = (rf"[ \t]*(?:(?:[-*+>]|\d+[.)])[ \t]+)?(?:\*\*|__)?(?:(?P<quote>[`'\"“])|[‘「『])?(?=[^\s]*[A-Za-z0-9])"
               rf"{_REFERENCE}(?P<value>(?(quote){_QUOTED}|{_SHAPED}))[`'\"”’」』]?(?:\*\*|__)?[ \t]*")
#: a code fence's line, which stands between a name and its value as a blank line does
_FENCE = r"[ \t]*(?:```|~~~)[\w+-]*[ \t]*"
#: an e-mail address: the login a password is pasted beside
_EMAIL = r"[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"
#: a login pasted as a pair, alone on its line: an e-mail address and, after or before it, one value that looks like
#: a password: as in prose (``_SHAPED``) with a small letter and a capital and a digit, or a small letter and a
#: sign, as services ask of a password ("ops@example.com q8Vz-hP3t"), or an app password ("abcd efgh ijkl mnop
#: ops@example.com"). A phone number, a date, a time, an address and port, a commit hash, a ticket's key, a handle
#: or a version beside an address is none, nor is a number (a numeric password beside an address stays: too many
#: ids are one); a line that says more than the pair is prose
_LOGIN_VALUE = rf"(?:\*\*|__|[`'\"])?(?P<value>{_APP_PASSWORD}|{_PASSWORD_LIKE}{_SHAPED})(?:\*\*|__|[`'\"])?"
#: the address as a chat may show it: bold, in backquotes, in angle brackets
_LOGIN_ADDRESS = rf"(?:\*\*|__|`|<)?{_EMAIL}(?:\*\*|__|`|>)?"
#: between the two: spaces (an ideographic one too), or a colon, bar, slash, comma, dash or arrow with or without
#: them ("ops@example.com:Hunter2!x", "…：Hunter2!x", "… - Hunter2!x", "… => Hunter2!x")
_LOGIN_BETWEEN = r"(?:[ \t\u3000\u00a0]*(?:[:：|/,，]|[-–—]|=>|->)[ \t\u3000\u00a0]*|[ \t\u3000\u00a0]+)"
#: before the pair, what a channel or a forwarded chat puts before a message (its stamp in brackets, "[Telegram …
#: 21:18 GMT+1]", "[1:13 PM, 4/1/2026]", then perhaps who said it, "Richard:"), a list item's or a quote's mark
#: ("- ", "> ", "1. ") and a label ("login: ", "邮箱 "); after it, a full stop
_LOGIN_PREFIX = (r"[ \t\u3000]*(?!(?i:author|committer|signed-off-by|co-authored-by|from|to|cc|bcc|reply-to|sender)[:：])"
                 r"(?:\[[^\]\n]{1,160}\][ \t]*)?(?:[^\s:@\[\]][^\n:@\[\]]{0,40}:[ \t]+)?"
                 r"(?:(?:[-*+>]|\d{1,3}[.)])[ \t]+)?(?:[^\s@:：]{1,20}[:：]?[ \t\u3000]+)?")
_LOGIN_END = r"[ \t\u3000\u00a0]*[。！；;]?[ \t]*\r?"
_LOGIN_AFTER = rf"{_LOGIN_PREFIX}{_LOGIN_ADDRESS}{_LOGIN_BETWEEN}{_LOGIN_VALUE}{_LOGIN_END}"
#: (a name before an address in angle brackets is its display name, "Owner0626 <owner0626@…>": git's author lines,
#: mail headers; so is a value after a label of those, "Author:", "Signed-off-by:", "From:", which the prefix refuses)
_LOGIN_BEFORE = rf"{_LOGIN_PREFIX}{_LOGIN_VALUE}{_LOGIN_BETWEEN}(?!<){_LOGIN_ADDRESS}{_LOGIN_END}"
#: what every secret detect-secrets finds has somewhere in its line, known without loading it (a
#: tenth of a second, once per process; the heartbeat redacts what it saves): a word of its key
#: characters, a URL, a key header, or a secret-sounding name (the last part of every name its
#: keyword detector knows contains one of these: tests/test_redact.py holds it to that)
_MAY_HOLD = re.compile(rf"[A-Za-z0-9+/=_\\\-]{{{_WORD_MIN},}}|{_HEADERS}|(?i:key|pass|pwd|secret|contrase|token"
                       rf"|{'|'.join(map(re.escape, _CODE_NAMES))})|{'|'.join(_CJK_NAMES + _CLI_TOOLS)}")
#: the expressions below serve only a text that may hold a secret (:func:`may_hold`): compiled when
#: first used, not on every import (a heartbeat that saves no such text never compiles them)
_compiled = lru_cache(maxsize=None)(re.compile)
#: a value that reads another one (``password = get_password()``, ``request.headers['apikey']``): detect-secrets'
#: own heuristic, but from the value on (it searched the whole clause: a password with ``=x(…)`` in it was spared)
_INDIRECT = r"[\w.-]+[\[(][^\v]*[\])](?![^\s;,])"
_QUOTES = "`'\"“”‘’「」"
#: a value's closing emphasis, and the punctuation after it (``**Hunter2xyz**,``)
_CLOSING = {marker: re.escape(marker) + r"[,;.:!?)\]]*\Z" for marker in ("**", "__")}
_RUN = f"{_CHARS}*"
_PEM_END = r"-----END[ A-Z0-9]*-----|\n\s*\n|\Z"  # compiled (and kept by re) for the first key header


@lru_cache(maxsize=1)
def _detectors() -> dict[str, Any]:
    """detect-secrets' detectors, loaded once: (kind, regex, group) triples and the entropy plugins."""
    from typing import cast

    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins import keyword
    from detect_secrets.plugins.base import RegexBasedDetector
    from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString, HexHighEntropyString

    patterns = []
    detectors: dict[str, Any] = get_mapping_from_secret_type_to_class()
    for kind, plugin in sorted(detectors.items()):
        if isinstance(plugin, type) and issubclass(plugin, RegexBasedDetector):
            # denylist is a class attribute on every detector (typed as an abstract property upstream)
            denylist = cast("list[re.Pattern[str]]", plugin.denylist)
            patterns += [(kind, regex, 1 if regex.groups else 0) for regex in denylist]
    patterns.append(("Secret Key", re.compile(_SK_KEY), 0))
    # prose and config files alike: ``password: x``, ``api_key = x`` (quotes optional)
    keywords: list[tuple[str, re.Pattern[str], int | str]] = [
        (keyword.KeywordDetector.secret_type, regex, group) for regex, group in keyword.CONFIG_DENYLIST_REGEX_TO_GROUP.items()]
    keywords += [(keyword.KeywordDetector.secret_type, regex, group)
                 for regex, group in ((re.compile(_CJK_KEYWORD), "value"), (re.compile(_EN_KEYWORD), "value"),
                                      (re.compile(_CODE_KEYWORD), "value"), (re.compile(_CODE_BEFORE), "value"),
                                      (re.compile(_TABLE_KEYWORD), "value"), (re.compile(_CLI_KEYWORD), "value"),
                                      *((re.compile(pattern), "value") for pattern in (
                                          _FROM_KEYWORD, _FROM_TO_KEYWORD, _ARROW_KEYWORD, _CJK_FROM_KEYWORD,
                                          _CJK_FROM_TO_KEYWORD)))]
    entropy = [Base64HighEntropyString(), HexHighEntropyString()]
    charset = "".join(sorted(set(entropy[0].charset)))
    return {
        "patterns": patterns, "keywords": keywords, "entropy": entropy,
        # the last literal of each secret-sounding name ("api_?key" -> "key"): lines without one skip the keyword regexes
        "keyword_words": tuple({entry.split("_?")[-1] for entry in keyword.DENYLIST} | set(_CJK_NAMES) | set(_CODE_NAMES)
                               | {"token"}),
        "tool_keywords": [(keyword.KeywordDetector.secret_type, re.compile(_TOOL_KEYWORD), "value")],
        "keyword_kind": keyword.KeywordDetector.secret_type, "header_cell": re.compile(_HEADER_CELL), "value_cell": re.compile(_VALUE_CELL),
        "gives_at_end": re.compile(_GIVES_AT_END), "value_line": re.compile(_VALUE_LINE), "prompt": re.compile(_PROMPT),
        "fence": re.compile(_FENCE),
        "word": re.compile(f"[{re.escape(charset)}]{{{_WORD_MIN},}}"),
        "hint": re.compile(f"[{re.escape(charset)}]{{{_WORD_MIN},}}|{_HEADERS}"),
    }


def may_hold(text: str) -> bool:
    """Whether ``text`` has what every secret has somewhere in its line (see ``_MAY_HOLD``), or a line
    that is a login pasted as a pair (:func:`_login_spans`, looked for only where an ``@`` is): text
    without it is what :func:`redact` returns unchanged, without loading the detectors."""
    return bool(text) and (_MAY_HOLD.search(text) is not None
                           or "@" in text and any(_login_spans(line) for line in text.split("\n")))


def redact(text: str) -> str:
    """``text`` with every secret detect-secrets recognises replaced by ``[REDACTED <kind>]``.

    Overlapping findings become one mark, named by the most specific detector (a named format
    before a keyword before an entropy measure)."""
    if not may_hold(text):
        return text
    spans = sorted(_spans(_masked(text)), key=lambda span: (span[0], _RANK.get(span[2], 0), -span[1]))
    if not spans:
        return text
    out, last = [], 0
    current: list[Any] | None = None
    for start, end, kind in spans:
        if current is not None and start < current[1]:
            current[1] = max(current[1], end)
            continue
        if current is not None:
            out += [text[last:current[0]], MARK.format(kind=current[2])]
            last = current[1]
        current = [start, end, kind]
    assert current is not None
    out += [text[last:current[0]], MARK.format(kind=current[2]), text[current[1]:]]
    return "".join(out)


#: the key shape the OpenAI-compatible providers hand out, ``sk-`` and twenty or more key characters
#: (Moonshot/Kimi, DeepSeek, DashScope…): detect-secrets knows only OpenAI's, by the ``T3BlbkFJ`` inside
#: it, and a key in capitals and digits is not random enough for its entropy measures (a real session
#: quoted a Kimi bridge token so)
_SK_KEY = r"(?<![A-Za-z0-9_-])sk-(?![\w-]*(?i:xxxx|your|example|placeholder))(?:[a-z0-9]+-)*[A-Za-z0-9_]{20,}(?![A-Za-z0-9_])"
#: a mark this module wrote: the detectors read it as what it stands for, a value, but one they pass
#: over (a template, ``<...>``, no key character in it), so that redacting twice changes nothing (its words name a secret, and
#: a detector had taken ``**[REDACTED`` for a value); a kind's name may hold parentheses ("Public IP (ipv4)")
_MARK = r"\[REDACTED [A-Za-z0-9 ()]+\]"


def cut(text: str, limit: int) -> str:
    """The first ``limit`` characters of a redacted ``text``, short of a mark the cut would halve
    (``[REDAC`` says less than nothing)."""
    for mark in _compiled(_MARK).finditer(text, 0, limit + 100):  # a kind's name is shorter than 90
        if mark.start() < limit < mark.end():
            return text[:mark.start()]
    return text[:limit]


def _masked(text: str) -> str:
    return _compiled(_MARK).sub(lambda mark: "<" + "." * (len(mark.group()) - 2) + ">", text) if "[REDACTED " in text else text


def redact_value(value: Any) -> Any:
    """Every string in a JSON-like value (dict, list, str) redacted; other values as they are."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: redact_value(item) for key, item in value.items()}
    if isinstance(value, list):
        return [redact_value(item) for item in value]
    return value


def _spans(text: str) -> Iterator[tuple[int, int, str]]:
    """Line by line, as detect-secrets scans: a line with no word of 20+ key characters, no ``://``
    and no key header meets no detector but the keyword one, and that one only when it names a secret
    (or when an earlier line named it: ``_Context``)."""
    found = _detectors()
    context = _Context(found)
    offset = 0
    for line in text.split("\n"):
        names: list[tuple[int, int]] = []
        pairs: list[tuple[int, int, str]] = []
        if line:
            low = line.lower()
            hints = [m.span() for m in found["hint"].finditer(line)]
            if hints:
                for start, end in _windows(hints, len(line)):
                    yield from _pattern_spans(text, line[start:end], offset + start, found["patterns"])
                yield from _shifted(_entropy_spans(line, found["word"], found["entropy"]), offset)
            names = _names(line, low, found["keyword_words"])
            for start, end in _windows(names, len(line)):
                yield from _shifted(_keyword_spans(line[start:end], found["keywords"]), offset + start)
            pairs = _pair_spans(line) if names else []
            yield from _shifted(iter(_login_spans(line) + pairs), offset)
            tools = _names(line, low, _CLI_TOOLS) if "-p" in line or "-a" in line or "-new" in line else []
            for start, end in _windows(tools, len(line)):
                yield from _shifted(_keyword_spans(line[start:end], found["tool_keywords"]), offset + start)
        yield from _shifted(context.spans(line, bool(names), bool(pairs)), offset)
        offset += len(line) + 1


#: the longest line read as a login pair (an address, a password, a few words)
_LOGIN_LONGEST = 400


def _login_spans(line: str) -> list[tuple[int, int, str]]:
    """The password of a login pasted as a pair on ``line`` alone (``_LOGIN_AFTER``, ``_LOGIN_BEFORE``); the
    same look serves :func:`may_hold`, so that the quick check never passes over a pair the detectors see."""
    if "@" not in line or len(line) > _LOGIN_LONGEST:
        return []
    for pattern in (_LOGIN_AFTER, _LOGIN_BEFORE):
        match = _compiled(pattern).fullmatch(line)
        if match is not None:
            return [_value_span(line, match)]
    return []


def _pair_spans(line: str) -> list[tuple[int, int, str]]:
    """The password of a login and a password named together and given at the end of ``line`` (``_PAIR_KEYWORD``),
    read on the whole line: the keyword windows end mid-line, where ``$`` would take a word for the line's end."""
    if len(line) > _LOGIN_LONGEST:
        return []
    match = _compiled(_PAIR_KEYWORD).search(line)
    return [] if match is None else [_value_span(line, match)]


def _value_span(line: str, match: re.Match[str]) -> tuple[int, int, str]:
    """The span of ``match``'s value in ``line``, less what closes around it (:func:`_unmarked`)."""
    start = match.start("value")
    return start, start + len(_unmarked(line, start, match.group("value"))), "Secret Keyword"


#: a table's cell border (an escaped one is a character of the cell)
_BAR = r"(?<!\\)\|"


class _Context:
    """What a line says of the lines after it: a table's header names the column that holds a secret
    (``_HEADER_CELL``), or the line ends giving one (``_GIVES_AT_END``) and the value stands alone on the
    next line, or the first after at most two blank or fence lines; or it names a login and its password
    together (``_PAIR_NAMED``) and gives neither, and the two come alone on the next two lines ("store username
    and password in the keychain" then "40251177" then "Q8wz7731k@": a real session)."""

    def __init__(self, found: dict[str, Any]) -> None:
        self.found = found
        self.columns: tuple[int, ...] = ()
        self.in_table = False
        self.giving = 0  # lines left in which the value may still come
        self.pair = 0  # the login's and the password's lines still to come (2, 1), after a line naming both

    def spans(self, line: str, named: bool, paired: bool = False) -> Iterator[tuple[int, int, str]]:
        """What ``line`` holds that earlier lines said would come; ``named``: it names a secret itself,
        ``paired``: it gives a named login's password itself (:func:`_pair_spans`)."""
        end = len(line) - 1 if line.endswith("\r") else len(line)  # a Windows line end is no character of it
        yield from self._column(line, end)
        if not self.giving and not self.pair and not named:  # nothing pending and nothing named: no pattern to read
            return
        if not line[:end].strip() or self.found["fence"].fullmatch(line, 0, end):
            self.giving = max(0, self.giving - 1)
            return
        if self.pair:
            yield from self._pair_line(line, end)
            return
        if self.giving:
            self.giving = 0
            match = self.found["value_line"].fullmatch(line, 0, end)
            if match is not None:
                yield from self._value(match, line)
                return
        if named and not self.found["prompt"].match(line):
            self.giving = 3 if self.found["gives_at_end"].search(line, max(0, end - _BEFORE - _AFTER), end) else 0
            if not self.giving and not paired and len(line) <= _LOGIN_LONGEST and _compiled(_PAIR_NAMED).search(line):
                self.pair = 2

    def _pair_line(self, line: str, end: int) -> Iterator[tuple[int, int, str]]:
        """The login's line, then the password's: the password when the line is one value shaped like it."""
        self.pair -= 1
        if self.pair:
            if " " in line[:end].strip():  # a sentence, not a login: the pair was named, not given
                self.pair = 0
            return
        match = self.found["value_line"].fullmatch(line, 0, end)
        if match is not None and _compiled(_PASSWORD_LIKE).match(line, match.start("value")):
            yield from self._value(match, line)

    def _column(self, line: str, end: int) -> Iterator[tuple[int, int, str]]:
        if not line.lstrip().startswith("|"):
            self.columns, self.in_table = (), False
            return
        first_row, self.in_table = not self.in_table, True
        if not first_row and not self.columns:
            return
        bars = [found.start() for found in _compiled(_BAR).finditer(line, 0, end)]
        if line[bars[-1] + 1:end].strip():  # a row without its closing pipe
            bars.append(end)
        cells = list(zip([bar + 1 for bar in bars[:-1]], bars[1:], strict=True))
        if first_row:
            self.columns = tuple(index for index, (start, stop) in enumerate(cells)
                                 if self.found["header_cell"].fullmatch(line, start, stop))
            return
        for index in self.columns:
            if index < len(cells):
                yield from self._value(self.found["value_cell"].fullmatch(line, *cells[index]), line)

    def _value(self, match: re.Match[str] | None, line: str) -> Iterator[tuple[int, int, str]]:
        """The value ``match`` found, as :func:`_keyword_spans` takes one (``x = read_key()`` is none)."""
        from detect_secrets.filters.heuristic import is_templated_secret

        if match is not None:
            start = match.start("value")
            value = _unmarked(line, start, match.group("value"))
            if not is_templated_secret(value) and not _compiled(_INDIRECT).match(line, start):
                yield start, start + len(value), self.found["keyword_kind"]


def _names(line: str, low: str, words: tuple[str, ...]) -> list[tuple[int, int]]:
    """Where the line names a secret (``key``, ``password``, … in any case)."""
    if len(low) != len(line):  # lowercasing changed the length (rare letters): read the whole line
        return [(0, len(line))] if any(word in low for word in words) else []
    found = []
    for word in words:
        at = low.find(word)
        while at >= 0:
            found.append((at, at + len(word)))
            at = low.find(word, at + 1)
    return found


#: how far around a hint the detectors look: the name before a value (``aws_secret_access_key = "``)
#: and the value after a name; a longer line is read in such windows, so its cost stays linear. Windows
#: that overlap are read as one up to _WINDOW_MOST characters: some of detect-secrets' own patterns
#: look from every position to the end of what they read (a line of "password is `" repeated, 200 kB,
#: took 38 s read whole), and every hint's own window still lies whole in one that is read
_BEFORE, _AFTER, _WINDOW_MOST = 80, 200, 2048


def _windows(spans: list[tuple[int, int]], length: int) -> Iterator[tuple[int, int]]:
    """The stretches of a line around each hint, overlapping ones merged up to ``_WINDOW_MOST``."""
    current: list[int] | None = None
    for start, end in sorted(spans):
        low, high = max(0, start - _BEFORE), min(length, end + _AFTER)
        if current is not None and low <= current[1] and max(current[1], high) - current[0] <= _WINDOW_MOST:
            current[1] = max(current[1], high)
            continue
        if current is not None:
            yield current[0], current[1]
        current = [low, high]
    if current is not None:
        yield current[0], current[1]


def _shifted(spans: Iterator[tuple[int, int, str]], offset: int) -> Iterator[tuple[int, int, str]]:
    for start, end, kind in spans:
        yield start + offset, end + offset, kind


def _pattern_spans(text: str, line: str, offset: int,
                   patterns: list[tuple[str, re.Pattern[str], int]]) -> Iterator[tuple[int, int, str]]:
    """The named detectors (AWS, GitHub, OpenAI, …) on one line; a private key header takes its PEM
    block (the following lines of ``text``) with it."""
    for kind, regex, group in patterns:
        for match in regex.finditer(line):
            # the whole match, unless the secret is a later part of it (a URL's password, a value after its name)
            start, end = match.span(group if group and match.start(group) > match.start() else 0)
            start, end = start + offset, end + offset
            if kind == "Private Key":  # the header names the block; the key is what follows it
                start -= 5 if text.startswith("-----", start - 5) else 0
                found_end = re.compile(_PEM_END).search(text, end)
                end = found_end.end() if found_end else len(text)
            if end > start:
                yield start, end, kind


def _keyword_spans(line: str, keywords: list[tuple[str, re.Pattern[str], int | str]]) -> Iterator[tuple[int, int, str]]:
    """The value after a secret-sounding name; in prose only its first word (the rest is read again:
    talk, or the next name), but a quoted value whole (a passphrase) and a value as long as a pattern
    reads to the end of its run."""
    from detect_secrets.filters.heuristic import is_templated_secret

    for kind, regex, group in keywords:
        at = 0
        while (match := regex.search(line, at)) is not None:
            start, end = match.span(group)
            quoted = start > 0 and end < len(line) and line[start - 1] in _QUOTES and line[end] in _QUOTES
            whole = quoted or _compiled(_APP_PASSWORD).fullmatch(line[start:end]) is not None
            value = line[start:end] if whole else line[start:end].split(None, 1)[0] if line[start:end].strip() else ""
            if len(value) == _LONGEST:
                value = line[start:_compiled(_RUN).match(line, start).end()]  # type: ignore[union-attr]  # * always matches
            value = _unmarked(line, start, value)
            # read on after the value taken: the rest of a long match may hold the next name and its value
            at = max(match.start() + 1, start + len(value)) if value else match.end() + (match.end() == match.start())
            # ``password = get_password()`` names no secret; after a Chinese name (``密码是GZFv(yWeCBI8FJC)``) a value
            # is said, not computed: a password may hold brackets
            if value and not is_templated_secret(value) and (
                    not _compiled(_INDIRECT).match(line, start) or _said_in_chinese(line, start)):
                yield start, start + len(value), kind


def _said_in_chinese(line: str, start: int) -> bool:
    """What stands before the value (its quotes and emphasis aside) is Chinese: 是, 为, a full-width colon."""
    before = line[:start].rstrip(" \t\u3000\u00a0`\"'「*")
    return bool(before) and ("\u3000" <= before[-1] <= "\u9fff" or before[-1] in "：，")


def _unmarked(line: str, start: int, value: str) -> str:
    """``value`` less the closing emphasis of ``**value**`` (the opening one stands before it) and
    what follows it, or less a comma or semicolon after it, and less what closes something opened
    before it (``**password: x**``, ``(use --password=x)``, ``| … -px|``): the mark leaves the Markdown
    balanced and the sentence whole."""
    for marker in ("**", "__"):
        if line.endswith(marker, 0, start):
            closing = _compiled(_CLOSING[marker]).search(value)
            if closing is not None and closing.start() > 0:
                return value[:closing.start()]
    value = value.rstrip(",;") or value
    trailer = _compiled(_TRAILER).search(value)
    if trailer is None or trailer.start() == 0:
        return value
    head = value[:trailer.start()]
    closers = _compiled(_CLOSER).findall(trailer.group())
    # a closer stays when the value itself opened it (``my_pass_``, ``f(x)``): then it is the value's own
    return value if any(_OPENS.get(closer, closer) in head for closer in closers) else head


#: what may close, after a value, something opened before it, and the punctuation after that: read from a run's
#: first closer and each character once (``**`` is two ``*``; read both ways, a run of 40 stars took minutes)
_TRAILER = r"(?<![*_)\]}|])(?:~~|[*_)\]}|])++[.,;:!?]*+\Z"
_CLOSER = r"\*\*|__|~~|[*_)\]}|]"
_OPENS = {")": "(", "]": "[", "}": "{", "|": "|"}


def _entropy_spans(text: str, word: re.Pattern[str], plugins: list[Any]) -> Iterator[tuple[int, int, str]]:
    """Unquoted words random enough to be keys, by detect-secrets' entropy measures and limits.

    A word is also read by its parts: the pieces of a path or URL between slashes, and each
    stretch of its own plugin's charset (a hex key followed by ``=`` or ``-``)."""
    from detect_secrets.filters.heuristic import is_potential_uuid, is_sequential_string

    for match in word.finditer(text):
        for plugin in plugins:
            for start, candidate in _parts(match, plugin.charset):
                if is_potential_uuid(candidate) or is_sequential_string(candidate):
                    continue
                if plugin.calculate_shannon_entropy(candidate) > plugin.entropy_limit:
                    yield start, start + len(candidate), plugin.secret_type
        for token in _compiled(rf"(?<![A-Za-z0-9])[A-Za-z0-9]{{{_TOKEN_MIN},}}(?![A-Za-z0-9])").finditer(
                text, match.start(), match.end()):
            if _random_token(token.group(), plugins[0]):
                yield token.start(), token.end(), "Random Token"


def _random_token(candidate: str, base64: Any) -> bool:
    """A key pasted bare (``_TOKEN_MIN``): capitals, small letters and digits mixed, or capitals and digits, random
    enough."""
    from detect_secrets.filters.heuristic import is_sequential_string

    upper, lower = sum(c.isupper() for c in candidate), sum(c.islower() for c in candidate)
    digits = sum(c.isdigit() for c in candidate)
    mixed = upper >= _TOKEN_EACH and lower >= _TOKEN_EACH and digits >= _TOKEN_EACH
    base32 = not lower and upper >= _TOKEN_EACH and digits >= _TOKEN_BASE32_DIGITS
    return ((mixed or base32) and not is_sequential_string(candidate)
            and _compiled(rf"[a-z]{{{_TOKEN_WORD}}}|[A-Z]{{{_TOKEN_WORD}}}").search(candidate) is None
            and base64.calculate_shannon_entropy(candidate) > _TOKEN_ENTROPY)


def _parts(match: re.Match[str], charset: str) -> Iterator[tuple[int, str]]:
    """The stretches of ``charset`` in the word, whole and split at slashes, long enough to be a key."""
    seen = set()
    for pattern in (_part_pattern(charset), _part_pattern(charset.replace("/", ""))):
        for found in pattern.finditer(match.string, match.start(), match.end()):
            if found.span() not in seen:
                seen.add(found.span())
                yield found.start(), found.group()


@lru_cache(maxsize=4)
def _part_pattern(charset: str) -> re.Pattern[str]:
    return re.compile(f"[{re.escape(charset)}]{{{_WORD_MIN},}}")
