"""The record schema (``schemas/record.schema.json``, JSON Schema draft 2020-12).

A record (``errors/verifications/<slug>.json``) is written by ``errorkb verify`` alone; the
schema says what such a file holds, field by field, so that a file written or edited by
hand in another shape fails ``errorkb check`` and gives a page no badge. Not pure: the
schema is read from its file (once, cached).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

RECORD_SCHEMA_FILE = Path(__file__).resolve().parents[1] / "schemas" / "record.schema.json"


@lru_cache(maxsize=1)
def record_schema() -> dict:
    return json.loads(RECORD_SCHEMA_FILE.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def record_validator():
    """A validator of the record schema (the schema itself checked first)."""
    from jsonschema import Draft202012Validator

    schema = record_schema()
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def record_errors(record) -> list:
    """Every violation of the record schema (``jsonschema`` errors), in the order of their paths."""
    return sorted(record_validator().iter_errors(record), key=lambda e: [str(p) for p in e.absolute_path])
