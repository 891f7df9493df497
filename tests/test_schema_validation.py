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


def _keys(node) -> set[str]:
    if isinstance(node, dict):
        return set(node) | {k for v in node.values() for k in _keys(v)}
    if isinstance(node, list):
        return {k for v in node for k in _keys(v)}
    return set()


def test_the_project_schemas_use_no_format_keyword():
    """Without a format checker a ``format`` is an annotation only; the schemas have none, so the
    skipped format package cannot change what they accept."""
    config = yaml.safe_load(CONFIG_SCHEMA.read_text())
    claims = json.loads(CLAIMS_SCHEMA.read_text())
    assert "properties" in _keys(config) and "properties" in _keys(claims)
    assert "format" not in _keys(config) - set(config.get("properties", {}))
    assert "format" not in _keys(claims) - set(claims.get("properties", {}))


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
