"""The shape of renal's rule files: ``[signal.NAME]``, ``[classify]``, ``[filter]`` and ``[condense]``.

Settings take their values from the built-in files in ``rules/`` (never written here): their
fields are required, the built-in tables have them all (a test decodes them), and a user's table
is checked as laid over them. Kept apart from :mod:`apollo.renal.rules` because msgspec (and the
typing it loads) costs the classifier's start-up more than the built-in files are worth checking:
it is imported only when a user's rule file is read.
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import UNSET, UnsetType


class SignalSpec(msgspec.Struct, forbid_unknown_fields=True):
    """What a user may say about a signal; every key is optional (a file may only add phrases)."""

    about: str = ""
    social: bool = False
    answers: bool = False
    anywhere: bool = False
    attached: bool = False
    confirmation: bool = False
    in_formulas: bool = False
    allow_question: bool = False
    agrees: bool = False
    opens: bool = False
    sound: bool = False
    after: list[str] = []
    not_after: list[str] = []
    not_after_unless: list[str] = []
    confidence: float = 0.8
    roles: list[str] = []
    whole: bool = False
    #: read only where the engine asks for it by name (a question's mark, an offer, a heading, a poll), not among the
    #: intents every clause is searched for
    by_name: bool = False
    zh: list[str] = []
    en: list[str] = []
    phrases: list[str] = []
    patterns: list[str] = []
    #: literals one of which every match of ``patterns`` contains: a text without any of them is
    #: not searched (absent: the patterns may match anything)
    requires: list[str] = []
    #: words the patterns stand for, no topic words of a message (as a listed phrase is not)
    markers: list[str] = []


# -- [classify] ---------------------------------------------------------------------------------------
class Normalize(msgspec.Struct, forbid_unknown_fields=True):
    annotation_patterns: list[str]
    trailing_particles: str
    collapse_single_characters: bool
    stretched_letters: bool
    binds_forward: list[str] = []
    addressed_by_name: list[str] = []
    read_as_one_unless: list[str] = []
    leading_address: list[str] = []


class Pasted(msgspec.Struct, forbid_unknown_fields=True):
    line_patterns: list[str]
    #: pairs of [opening line, closing line] patterns
    quotation_marks: list[Annotated[list[str], msgspec.Meta(min_length=2, max_length=2)]] = []
    block_patterns: list[str] = []
    opening_session_runs_on: bool = False
    document_openings: list[str] = []


class Keywords(msgspec.Struct, forbid_unknown_fields=True):
    min_word_letters: int
    zh_stop_chars: str
    en_stopwords: list[str]


class VerdictRow(msgspec.Struct, forbid_unknown_fields=True):
    """One row of ``[[classify.turns]]``, ``kinds``, ``from_user`` or ``from_agent`` (what each key
    means is told in ``classify.toml``). A key a row leaves out stays out: the engine reads its
    absence (a row without ``when`` applies to every message)."""

    rule: str
    category: str
    confidence: float
    reason: str
    when: list[str] | str | UnsetType = UNSET
    unless: list[str] | UnsetType = UNSET
    action: str | UnsetType = UNSET
    effect: str | UnsetType = UNSET
    answered: str | UnsetType = UNSET
    answered_action: str | UnsetType = UNSET
    answer_settles: bool | UnsetType = UNSET
    answer_min_tokens: int | UnsetType = UNSET
    kinds: list[str] | UnsetType = UNSET
    max_tokens: int | UnsetType = UNSET
    copy: bool | UnsetType = UNSET
    routed_again: bool | UnsetType = UNSET
    noticed_again: bool | UnsetType = UNSET
    chatter: bool | UnsetType = UNSET
    says: str | UnsetType = UNSET
    unless_says: list[str] | UnsetType = UNSET
    restates: bool | UnsetType = UNSET
    keeps_open: bool | UnsetType = UNSET


class ClassifySettings(msgspec.Struct, forbid_unknown_fields=True):
    confirm_below: float
    social_max_chars: int
    tool_keep_tokens: int
    compress_tokens: int
    long_user_tokens: int
    duplicate_min_tokens: int
    echo_min_tokens: int
    memory: int
    max_candidates: int
    supersede_min_shared: int
    supersede_min_share: float
    supersede_overlap: float
    answer_min_shared: int
    answer_min_share: float
    agent_question_answered: str
    superseded_leave: list[str]
    echo_words: list[str]
    stance_categories: list[str]
    stance_report_specifics: str
    answer_left_open_by: list[str]
    answer_held_by: list[str]
    left_to_user_by: list[str]
    left_to_user_done_by: list[str]
    answer_max_keys: int
    question_left_by: list[str]
    tasks_called_off_by: list[str]
    self_answered_by: list[str]
    request_restated_share: float
    report_moved_on_turns: int
    restate_min_share: float
    restate_specifics_named: str
    notice_stamps: str
    notice_times: str
    outcome_failed_by: list[str]
    outcome_failed_unless: list[str]
    outcome_failed_after: list[str]
    outcome_failed_after_by: list[str]
    done_closes_unless: list[str]
    state_reports: list[str]
    delivered_runs: list[str]
    delivered_states: list[str]
    failed_parts_by: list[str]
    #: pairs of [fact, signal]
    replies_to: list[Annotated[list[str], msgspec.Meta(min_length=2, max_length=2)]]
    choice_markers: str
    choice_rejects: str
    choice_list_ends: str
    choice_reply_max_tokens: int
    reply_without_words: str
    attachment_placeholder: str
    fenced_answers: list[str]
    structured_reply: str
    choice_fillers: list[str]
    option_item: str
    option_not_after: str
    normalize: Normalize
    pasted: Pasted
    keywords: Keywords
    turns: list[VerdictRow]
    kinds: list[VerdictRow]
    from_user: list[VerdictRow]
    from_agent: list[VerdictRow]


# -- [filter] -----------------------------------------------------------------------------------------
class FilterAnchors(msgspec.Struct, forbid_unknown_fields=True):
    token: str
    specific: list[str]
    min_chars: int
    cjk_gram: int
    max_share: float


class FilterReabsorb(msgspec.Struct, forbid_unknown_fields=True):
    min_words: int
    patterns: list[str]


class FilterSettings(msgspec.Struct, forbid_unknown_fields=True):
    recent_turns: int
    compact_tail_tokens: int
    tool_keep_tokens: int
    tool_head_lines: int
    referenced_lines: int
    tool_line_chars: int
    tool_marker_en: str
    tool_marker_zh: str
    tool_recall_en: str
    tool_recall_zh: str
    tool_argument_chars: int
    tool_argument_head_chars: int
    tool_argument_marker: str
    tool_replaced_arguments: list[str]
    tool_kept_arguments: list[str]
    never_rescued: list[str]
    rescued_by_pattern_only: list[str]
    small_talk_after: list[str]
    small_talk_chars: int
    repeat_coverage: float
    document_repeat_coverage: float
    repeat_window: int
    repeat_min_words: int
    estimate_margin: float
    budget_opening_tokens: int
    budget_opening_marker_en: str
    budget_opening_marker_zh: str
    specific_weight: float
    specific: list[str]
    digest_item_chars: int
    digest_reply_chars: int
    digest_recent_request_chars: int
    digest_outdated_chars: int
    digest_pause_hours: float
    digest_change_arguments: list[str]
    digest_failed_summary: list[str]
    digest_empty_section: list[str]
    digest_earlier_left_out: list[str]
    digest_earlier_file_lists: list[str]
    digest_earlier_file_path: str
    anchors: FilterAnchors
    reabsorb: FilterReabsorb



# -- [condense] ---------------------------------------------------------------------------------------
class CondenseSettings(msgspec.Struct, forbid_unknown_fields=True):
    """The numbers of ``[condense]``; its tables are languages (:class:`CondenseLanguage`)."""

    max_content_loss: float
    min_content_letters: int
    interjection_signals: list[str]


class CondenseLanguage(msgspec.Struct, forbid_unknown_fields=True):
    """``[condense.<language>]``: every list optional (a file may add to only one); a user's lists
    add to the built-in ones."""

    function_words: list[str] = []
    never_drop: list[str] = []
    phatic_words: list[str] = []
    phatic_patterns: list[str] = []
    interjections: list[str] = []
    hedges: list[str] = []
    intensifiers: list[str] = []
    intensifiers_before_evaluative: list[str] = []
    articles: list[str] = []
    clause_subjects: list[str] = []
    auxiliaries: list[str] = []
    particles: list[str] = []
    joining_words: list[str] = []
    keep_words: list[str] = []
    verb_particles: list[str] = []
    verb_particles_at_end: list[str] = []
    particle_verbs: list[str] = []
    final_particles: list[str] = []
    verb_objects: list[str] = []
    be_forms: list[str] = []
    question_auxiliaries: list[str] = []
    question_subjects: list[str] = []
    particle_words: list[str] = []


#: the tables of ``[condense]``, by language
CondenseLanguages = dict[str, CondenseLanguage]
