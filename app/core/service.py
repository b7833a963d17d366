"""The hosted conversion service's interface, as plain data (``shared/spec/service-interface.md``).

Both sides of it live in Pressroom: the remote engine (a client) and ``pressroom serve`` (a server of
the same interface). What they must agree on is here: the operations and the names integrations give
them, the ``code`` each sends, the paths, the key-check record, and how a key is shown (never whole).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any


class Operation(StrEnum):
    """An execution operation, by the name integrations put in the origin header."""

    GENERATE_PDF = "generatePDF"
    GENERATE_PNG = "generatePNG"
    SCREENSHOT = "screenshot"
    MERGE_PDFS = "mergePDFs"
    PUPPETEER = "puppeteer"

    @property
    def utility(self) -> str:
        return _UTILITIES[self]


_UTILITIES = {
    Operation.GENERATE_PDF: "HTML2PDF",
    Operation.GENERATE_PNG: "HTML2PNG",
    Operation.SCREENSHOT: "SCREENSHOT",
    Operation.MERGE_PDFS: "PDF_MERGE",
    Operation.PUPPETEER: "PUPPETEER",
}

EXECUTION_PREFIX = "__js1-"
DEFAULT_ORIGIN_HEADER = "service-origin"
DEFAULT_INTEGRATION = "pressroom"

# Merge: the service gets URLs, and the code downloads each as raw bytes, encodes it as base64 and
# hands the list to PDF_MERGE (spec 2.2), as the integrations' code does.
MERGE_CODE = """const axios = require("axios");
const { PDF_MERGE } = require("./utils");
const files = [];
for (const url of input) {
  const response = await axios.get(url, { responseType: "arraybuffer" });
  files.push(Buffer.from(response.data).toString("base64"));
}
return PDF_MERGE(files);"""


def code_for(operation: Operation) -> str:
    """The ``code`` an integration sends for ``operation``: it calls the one utility with ``input``."""
    if operation is Operation.MERGE_PDFS:
        return MERGE_CODE
    utility = operation.utility
    return f'const {{ {utility} }} = require("./utils");\nreturn {utility}(input);'


def _normalized(code: str) -> str:
    """Code with quotes unified and whitespace and semicolons gone: how two sendings are compared."""
    return re.sub(r"[\s;]+", "", code.replace("'", '"').replace("`", '"'))


_KNOWN = {_normalized(code_for(operation)): operation for operation in Operation}


def recognize(code: object) -> Operation | None:
    """The operation whose utility call ``code`` is, or None: no other code is ever run."""
    return _KNOWN.get(_normalized(code)) if isinstance(code, str) else None


def execution_path(key: str) -> str:
    return f"/{EXECUTION_PREFIX}{key}"


def key_check_path(key: str) -> str:
    return f"/core/api-key/{key}"


# -- keys are never shown whole --------------------------------------------------------------------


def redact(key: str) -> str:
    """``…abcd``: enough to tell keys apart, not enough to use one."""
    return "…" + key[-4:] if len(key) >= 12 else "…"


def redact_text(text: str, key: str | None) -> str:
    """``text`` with every occurrence of ``key`` shown redacted (``__js1-…abcd``)."""
    if not key:
        return text
    return text.replace(key, redact(key))


def redact_value(value: Any, key: str | None) -> Any:
    """A JSON value with the key redacted wherever it appears, in strings at any depth."""
    if isinstance(value, str):
        return redact_text(value, key)
    if isinstance(value, list):
        return [redact_value(item, key) for item in value]
    if isinstance(value, dict):
        return {name: redact_value(item, key) for name, item in value.items()}
    return value


_KEY_IN_PATH = re.compile(rf"({re.escape(EXECUTION_PREFIX)}|/core/api-key/)([^/?#\s]+)")


def redact_paths(text: str) -> str:
    """Redact keys in request paths of log lines and messages, whoever's key they are."""
    return _KEY_IN_PATH.sub(lambda m: m.group(1) + redact(m.group(2)), text)


# -- the key-check record (spec 2.1) ----------------------------------------------------------------


def as_datetime(value: object) -> datetime | None:
    """A number that looks like an epoch time (seconds or milliseconds), as a UTC time; else None."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    for seconds in (value, value / 1000):
        if 946_684_800 <= seconds <= 4_102_444_800:  # 2000-01-01 .. 2100-01-01
            return datetime.fromtimestamp(seconds, UTC)
    return None


def _text(data: dict[str, Any], name: str) -> str | None:
    value = data.get(name)
    return value if isinstance(value, str) else None


def _number(data: dict[str, Any], name: str) -> float | None:
    value = data.get(name)
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _flag(data: dict[str, Any], name: str) -> bool | None:
    value = data.get(name)
    return value if isinstance(value, bool) else None


@dataclass(frozen=True, slots=True)
class JwtClaims:
    at_hash: str | None = None
    sub: str | None = None
    email_verified: bool | None = None
    iss: str | None = None
    idp_username: str | None = None  # "idp:username" in the record
    origin_jti: str | None = None
    aud: str | None = None
    token_use: str | None = None
    auth_time: float | None = None
    user_id: str | None = None  # "userId"
    provider_name: str | None = None
    provider_type: str | None = None
    issuer: str | None = None
    primary: bool | None = None
    jti: str | None = None
    email: str | None = None

    @classmethod
    def from_json(cls, data: object) -> JwtClaims | None:
        if not isinstance(data, dict):
            return None
        return cls(
            at_hash=_text(data, "at_hash"),
            sub=_text(data, "sub"),
            email_verified=_flag(data, "email_verified"),
            iss=_text(data, "iss"),
            idp_username=_text(data, "idp:username"),
            origin_jti=_text(data, "origin_jti"),
            aud=_text(data, "aud"),
            token_use=_text(data, "token_use"),
            auth_time=_number(data, "auth_time"),
            user_id=_text(data, "userId"),
            provider_name=_text(data, "providerName"),
            provider_type=_text(data, "providerType"),
            issuer=_text(data, "issuer"),
            primary=_flag(data, "primary"),
            jti=_text(data, "jti"),
            email=_text(data, "email"),
        )


@dataclass(frozen=True, slots=True)
class ApiKeyRecord:
    """What the key check returns about a key; every field of the spec, extra fields kept aside."""

    workspace_id: str | None = None
    name: str | None = None
    max_request_count: float | None = None
    api_key_data_id: str | None = None  # apiKeyData.id (apiKeyData.value is the key itself: not kept)
    timestamp: float | None = None
    created_at: float | None = None
    date_created: float | None = None
    user_id: str | None = None
    exp: float | None = None
    iat: float | None = None
    jwt: JwtClaims | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict, repr=False)  # the answer as it came (has the key in it)

    KNOWN = ("workspaceId", "name", "maxRequestCount", "apiKeyData", "apiKey", "timestamp", "createdAt",
             "jwt", "dateCreated", "userId", "exp", "iat")  # fmt: skip

    @classmethod
    def from_json(cls, data: object) -> ApiKeyRecord:
        if not isinstance(data, dict):
            raise ValueError("the key-check answer is not a JSON object")
        key_data = data.get("apiKeyData")
        return cls(
            workspace_id=_text(data, "workspaceId"),
            name=_text(data, "name"),
            max_request_count=_number(data, "maxRequestCount"),
            api_key_data_id=_text(key_data, "id") if isinstance(key_data, dict) else None,
            timestamp=_number(data, "timestamp"),
            created_at=_number(data, "createdAt"),
            date_created=_number(data, "dateCreated"),
            user_id=_text(data, "userId"),
            exp=_number(data, "exp"),
            iat=_number(data, "iat"),
            jwt=JwtClaims.from_json(data.get("jwt")),
            extra={key: value for key, value in data.items() if key not in cls.KNOWN},
            raw=data,
        )

    def __repr__(self) -> str:  # short, and with nothing secret in it
        return f"ApiKeyRecord(workspace={self.name!r}, id={self.workspace_id!r}, max_requests={self.max_request_count!r})"
