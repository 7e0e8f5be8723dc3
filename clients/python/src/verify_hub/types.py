"""The published verification result (ENGINE-API.md section 2.1) as TypedDicts.

A result is the JSON object the engine sent, unchanged: a plain ``dict``. ``None`` means not determined
(a check not made is ``None``, never ``False``). ``smtp_check``, ``spam_trap_risk``, ``grade``, ``spf``,
``dkim`` and ``dmarc`` are open vocabularies: expect values not listed here. Other engines may add fields;
they are kept in the dict.
"""

from __future__ import annotations

from typing import Literal, Optional, TypedDict

Risk = Literal["safe", "risky", "invalid", "unknown"]


class Authentication(TypedDict):
    """The domain's e-mail authentication records; this engine's values are in engine/openapi.yaml."""

    spf: Optional[str]  # e.g. "strict"
    dkim: Optional[str]  # e.g. "found"
    dmarc: Optional[str]  # e.g. "reject"


class Blacklist(TypedDict):
    listed: Optional[bool]
    listed_count: Optional[int]
    total_checks: Optional[int]


class Deliverability(TypedDict):
    grade: Optional[str]
    score: Optional[float]
    authentication: Authentication
    blacklist: Blacklist


class FieldSetB(TypedDict):
    """Field set B, the canonical one: every field on every answer of a verify-hub engine."""

    email: str
    score: int  # 0-100
    risk: Risk
    syntax_valid: Optional[bool]
    mx_found: Optional[bool]
    smtp_check: Optional[str]  # e.g. "deliverable"; open vocabulary
    is_disposable: Optional[bool]
    is_role_account: Optional[bool]
    is_catch_all: Optional[bool]
    is_free_provider: Optional[bool]
    spam_trap_risk: Optional[str]  # e.g. "low"; open vocabulary
    deliverability: Deliverability


class FieldSetA(TypedDict, total=False):
    """Field set A's fields that do not collide with set B's (``email``, ``score``, ``mx_found`` are shared)."""

    valid: Optional[bool]
    deliverable: Optional[bool]
    smtp_valid: Optional[bool]
    disposable: Optional[bool]
    role_based: Optional[bool]
    free_email: Optional[bool]


class Extensions(TypedDict, total=False):
    """verify-hub's flat extension fields (engine/README.md, engine/openapi.yaml)."""

    reason: str  # stable snake_case code: deliverable, mailbox_not_found, no_mx, disposable, ...
    normalized: str
    catch_all_confidence: Optional[float]  # 0..1
    checked_at: str  # ISO 8601
    billable: bool  # False for unknown
    did_you_mean: Optional[str]


class VerificationResult(FieldSetB, FieldSetA, Extensions):
    """The verify answer as published: field set B, field set A's flags and the extension fields."""
