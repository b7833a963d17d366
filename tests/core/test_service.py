"""The hosted service's interface as data: code recognition, key redaction, the key record."""

from __future__ import annotations

import pytest

from app.core import service
from app.core.service import ApiKeyRecord, Operation, as_datetime, recognize

KEY = "abcdefgh-1234-5678-wxyz"


@pytest.mark.parametrize("operation", list(Operation))
def test_every_operation_has_its_code(operation: Operation) -> None:
    code = service.code_for(operation)
    assert operation.utility in code and 'require("./utils")' in code
    assert recognize(code) is operation


@pytest.mark.parametrize(
    "code",
    [
        "const {HTML2PDF}=require('./utils');return HTML2PDF(input);",
        "const { HTML2PDF } = require(`./utils`)\n\n\treturn HTML2PDF(input)",
        '  const  {  HTML2PDF  }  =  require( "./utils" ) ;  return  HTML2PDF( input ) ;  ',
    ],
)
def test_quotes_and_whitespace_do_not_matter(code: str) -> None:
    assert recognize(code) is Operation.GENERATE_PDF


@pytest.mark.parametrize(
    "code",
    [
        "return HTML2PDF(input);",
        "const { HTML2PDF } = require('./utils'); return HTML2PDF(input.replace('a', 'b'));",
        "const { HTML2PDF } = require('./utils'); require('child_process').execSync('id'); return HTML2PDF(input);",
        "const { HTML2PNG } = require('./utils'); return HTML2PDF(input);",
        "",
        None,
        42,
    ],
)
def test_anything_else_is_unknown(code: object) -> None:
    assert recognize(code) is None


def test_redaction() -> None:
    assert service.redact(KEY) == "…wxyz"
    assert service.redact("short") == "…"
    assert service.redact_text(f"POST /__js1-{KEY} failed for {KEY}", KEY) == "POST /__js1-…wxyz failed for …wxyz"
    assert (
        service.redact_paths(f"GET /core/api-key/{KEY} and POST /__js1-{KEY}?x=1")
        == "GET /core/api-key/…wxyz and POST /__js1-…wxyz?x=1"
    )
    assert service.redact_value({"a": [KEY, {"b": f"x{KEY}"}], "n": 3}, KEY) == {"a": ["…wxyz", {"b": "x…wxyz"}], "n": 3}


def test_epoch_numbers_become_dates() -> None:
    assert as_datetime(1735689600).isoformat() == "2025-01-01T00:00:00+00:00"  # type: ignore[union-attr]
    assert as_datetime(1735689600000).isoformat() == "2025-01-01T00:00:00+00:00"  # type: ignore[union-attr]
    assert as_datetime(5000) is None and as_datetime("1735689600") is None and as_datetime(True) is None


def test_the_record_tolerates_missing_odd_and_extra_fields() -> None:
    record = ApiKeyRecord.from_json({"name": "X", "maxRequestCount": "lots", "jwt": "not an object", "new": 1})
    assert record.name == "X" and record.max_request_count is None and record.jwt is None
    assert record.extra == {"new": 1}
    with pytest.raises(ValueError):
        ApiKeyRecord.from_json(["not", "an", "object"])
