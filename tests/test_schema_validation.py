"""The JSON-schema validator loads without the optional IRI format package (seconds of grammar
compilation at import, paid by every Snakemake start), which the project's schemas cannot need."""

from __future__ import annotations

import json
import subprocess
import sys

import yaml
from conftest import ROOT

from onlinerank.claims.report import SCHEMA_PATH as CLAIMS_SCHEMA
from onlinerank.schema_validation import SKIPPED_FORMAT_PACKAGE
from onlinerank.settings import SCHEMA_PATH as CONFIG_SCHEMA

SMOKE = ROOT / "config" / "smoke.yaml"


def _keywords(node) -> set[str]:
    """The JSON-schema keywords used anywhere in ``node``: every key of every subschema, but not
    the names of the properties a ``properties`` (or ``$defs``) map declares."""
    if isinstance(node, list):
        return {k for v in node for k in _keywords(v)}
    if not isinstance(node, dict):
        return set()
    out = set(node)
    for key, value in node.items():
        if key in ("properties", "$defs") and isinstance(value, dict):
            out |= {k for sub in value.values() for k in _keywords(sub)}
        else:
            out |= _keywords(value)
    return out


def test_the_project_schemas_use_no_format_keyword():
    """Without a format checker a ``format`` is an annotation only; the schemas have none, so the
    skipped format package cannot change what they accept (a property named ``format``, such as
    the change log's, is not the keyword)."""
    config = yaml.safe_load(CONFIG_SCHEMA.read_text())
    claims = json.loads(CLAIMS_SCHEMA.read_text())
    assert {"properties", "type"} <= _keywords(config) and {"properties", "type"} <= _keywords(claims)
    assert "format" not in _keywords(config)
    assert "format" not in _keywords(claims)
    # the keyword is seen where a subschema uses it, at any depth
    assert "format" in _keywords({"properties": {"a": {"items": {"type": "string", "format": "uri"}}}})
    assert "format" not in _keywords({"properties": {"format": {"const": 2}}})


def test_the_validator_loads_without_the_format_package_and_leaves_it_importable():
    code = f"""
import importlib.util, sys
from onlinerank.schema_validation import jsonschema
from onlinerank.config import validate_schema
js = jsonschema()
assert "jsonschema" in sys.modules and {SKIPPED_FORMAT_PACKAGE!r} not in sys.modules
assert sys.modules.get({SKIPPED_FORMAT_PACKAGE!r}, 0) is not None      # not left hidden
import yaml
cfg = yaml.safe_load(open({str(SMOKE)!r}))
cfg.pop("checkpoints", None)
validate_schema(cfg)
assert cfg["checkpoints"] >= 1                                          # defaults filled
try:
    js.validate({{"a": "x"}}, {{"properties": {{"a": {{"type": "integer"}}}}}})
except js.ValidationError:
    print("rejects")
print("installed" if importlib.util.find_spec({SKIPPED_FORMAT_PACKAGE!r}) else "absent")
"""
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.split()[0] == "rejects"
    if p.stdout.split()[1] == "installed":  # and a later import gets the real package
        q = subprocess.run(
            [
                sys.executable,
                "-c",
                "from onlinerank.schema_validation import jsonschema; jsonschema(); "
                f"import {SKIPPED_FORMAT_PACKAGE} as m; assert m.is_valid_syntax",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert q.returncode == 0, q.stderr[-3000:]
