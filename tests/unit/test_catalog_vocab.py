"""The knob schema is the single source of the knob vocabulary (issue 12 item 4): every field and every
allowed value has a meaning there, and the model, the loader, the knob card and the book read it."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from flashtune.catalog import load_catalog, vocab
from flashtune.catalog.card import MEANT, render_card

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "data" / "knobs" / "knob.schema.json"
sys.path.insert(0, str(REPO / "scripts"))
from bookgen import knob_pages, myst  # noqa: E402


def _walk(node: Any, path: str = "") -> list[tuple[str, dict[str, Any]]]:
    out = []
    if isinstance(node, dict):
        out.append((path, node))
        for k, v in node.items():
            out += _walk(v, f"{path}/{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _walk(v, f"{path}/{i}")
    return out


def test_every_field_and_every_value_has_a_meaning() -> None:
    schema = json.loads(SCHEMA.read_text())
    for path, node in _walk(schema):
        if not path.endswith("/properties"):  # a "properties" map may hold a field named enum
            assert "enum" not in node, f"{path}: write allowed values as oneOf [{{const, description}}]"
        if "const" in node:
            assert node.get("description"), f"{path}: value {node['const']!r} has no meaning"
        if isinstance(node.get("properties"), dict) and not path.endswith("/properties"):
            for field, spec in node["properties"].items():
                assert spec.get("description"), f"{path}/properties/{field} has no description"
    for name in ("knob", "unsafe", "gone", "deadWhen"):
        assert vocab.fields(name) and all(vocab.fields(name).values()), name


def test_loader_and_card_follow_the_schema(tmp_path: Path) -> None:
    """A value and a field added to the schema (only there) are accepted by the loader, and the card prints
    the schema's meaning; without the schema entry the same knob file is refused."""
    data = tmp_path / "data"
    shutil.copytree(REPO / "data" / "knobs", data / "knobs")
    ceph = data / "knobs" / "ceph.yaml"
    text = ceph.read_text()
    start = text.index("  - name: osd_op_queue\n")
    end = text.index("\n  - name:", start + 1)
    block = text[start:end]
    assert "    effect: restart\n" in block
    ceph.write_text(
        text[:start]
        + block.replace("    effect: restart\n", "    effect: reboot\n    reviewer: ops\n")
        + text[end:]
    )
    code = (
        "from flashtune.catalog import load_catalog\nfrom flashtune.catalog.card import render_card\n"
        "print(render_card(load_catalog().get('osd_op_queue', 'ceph')))"
    )
    env = {"FLASHTUNE_DATA": str(data), "PYTHONPATH": str(REPO / "compiler")}

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
        )

    refused = run()
    assert refused.returncode != 0 and "reviewer" in refused.stderr  # unknown field: not in the schema
    schema = json.loads(SCHEMA.read_text())
    props = schema["$defs"]["knob"]["properties"]
    props["reviewer"] = {"description": "who last reviewed the knob", "type": "string"}
    ceph.write_text(ceph.read_text().replace("    reviewer: ops\n", ""))
    (data / "knobs" / "knob.schema.json").write_text(json.dumps(schema))
    refused = run()
    assert refused.returncode != 0 and "reboot" in refused.stderr  # value not in the schema's effect set
    props["effect"]["oneOf"].append({"const": "reboot", "description": "needs the whole host rebooted"})
    (data / "knobs" / "knob.schema.json").write_text(json.dumps(schema))
    ceph.write_text(
        ceph.read_text().replace("    effect: reboot\n", "    effect: reboot\n    reviewer: ops\n", 1)
    )
    shown = run()
    assert shown.returncode == 0, shown.stderr
    assert "takes effect: reboot (needs the whole host rebooted)" in " ".join(shown.stdout.split())


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_card_and_book_print_the_schemas_meanings(tmp_path: Path) -> None:
    catalog = load_catalog()
    pages = {p.stem: p.read_text() for p in knob_pages.write(catalog, tmp_path)}
    for knob in catalog:
        card = _flat(render_card(knob))
        section = _flat(
            pages[knob.domain].split(f"({knob_pages.knob_label(knob)})=", 1)[1].split("\n(knob-", 1)[0]
        )
        for field in MEANT:
            value = getattr(knob, field)
            if value is None or (
                field == "effect" and not any(knob.exists_in(r) for r in knob.releases or (None,))
            ):
                continue
            meaning = vocab.meanings(field)[value]
            if field == "safety" and knob.safety_shown != knob.safety:
                # safe as a knob, but some values are a risk: never called "no data or security at stake"
                assert meaning not in card and meaning not in section, knob.name
                assert "value-dependent" in card and "value-dependent" in section, knob.name
                continue
            assert meaning and meaning in card and meaning in section, (knob.name, field, meaning)
    index = _flat(pages["index"])
    for field, meaning in vocab.fields().items():
        assert f"| `{field}` | {_flat(myst.plain(meaning))} |" in index, field
    for value, meaning in vocab.meanings("safety").items():
        assert meaning in index, value


def test_value_sets_and_releases_agree_with_the_schema() -> None:
    from flashtune.catalog.knob import DOMAINS, EFFECT, SAFETY, TYPES
    from flashtune.releases import CEPH_RELEASES, MYSQL_FLAVOURS

    assert tuple(vocab.values(f) for f in ("domain", "type", "safety", "effect")) == (
        DOMAINS,
        TYPES,
        SAFETY,
        EFFECT,
    )
    assert vocab.values("release") == CEPH_RELEASES + MYSQL_FLAVOURS
    assert set(vocab.values("unsafe.safety")) == set(SAFETY) - {"safe"}
    assert re.fullmatch(r"[a-z_]+", "".join(vocab.fields()))
