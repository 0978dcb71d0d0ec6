"""Checks on a compiled bundle before anything is written.

1. validate_settings: every ceph.conf key exists in the target release (Ceph's option names per release,
   data/ceph-option-names/, plus the catalog's added/removed facts), every my.cnf server option exists in
   MariaDB, nothing data-unsafe is emitted unless opted in, and values equal to the release default are
   dropped (a no-op line only hides the default from readers).
2. validate_bundle: every emitted file is re-parsed and linted for its release; an error is a flashtune bug.
"""

from __future__ import annotations

import json
from typing import Any

from flashtune.catalog import Knob, names
from flashtune.catalog.spelling import mysql_key, mysql_option
from flashtune.compile.formats import BY_KIND, domain_of, release_of
from flashtune.compile.profiles import read_profile
from flashtune.errors import DataError
from flashtune.evidence import place
from flashtune.lint import lint_text
from flashtune.model import Bundle, GiB


def _layers(bundle: Bundle) -> dict[tuple[str, str, Any], str]:
    """(file, section, key) -> the last profile layer that sets it (a bad value's error names its line)."""
    out: dict[tuple[str, str, Any], str] = {}
    for name in bundle.layers:
        for file, sections in read_profile(name).settings.items():
            for section, kv in sections.items():
                out.update(dict.fromkeys([(file, section, key) for key in kv], name))
    return out


def validate_settings(bundle: Bundle, catalog: Any) -> None:
    req = bundle.request
    ceph_names = names.option_names("ceph", req.ceph_release)
    mysql_names = names.option_names("mysql", req.mysql_flavour)
    kept = []
    layers = _layers(bundle)
    for s in bundle.settings:
        layer = layers.get((s.file, s.section, s.key), bundle.layers[-1])
        prof = read_profile(layer)
        where = (str(prof.path), prof.lines.get((s.file, s.section, s.key)))
        domain = domain_of(s.file)
        knob = catalog.get(s.key, domain) if domain in ("ceph", "mysql", "sysctl") else None
        knob = knob if isinstance(knob, Knob) else None
        release = release_of(s.file, req.ceph_release, req.mysql_flavour)
        own = not (knob is not None and s.evidence == knob.evidence)  # the catalog checks its own refs
        dangling = [ref for ref in s.evidence if own and place(ref) is None]
        if dangling:
            raise DataError(
                f"evidence {dangling[0]!r} of {s.key} names no row of data/datapackage.json",
                file=where[0],
                line=where[1],
                suggestion="use '<resource>/<id>', e.g. sources/guide-osd",
            )
        if s.file == "ceph.conf" and ceph_names is not None and s.key not in ceph_names:
            raise DataError(
                f"ceph.conf key {s.key!r} does not exist in Ceph {req.ceph_release}",
                file=where[0],
                line=where[1],
                suggestion="fix the profile (Ceph ignores unknown keys silently)",
            )
        if (
            s.file == "my.cnf"
            and s.section == "mysqld"
            and mysql_names is not None
            and not s.key.startswith("!")
            and mysql_option(mysql_key(s.key)[0], mysql_names.__contains__)[0] not in mysql_names
        ):
            raise DataError(
                f"my.cnf option {s.key!r} does not exist in {req.mysql_flavour}",
                file=where[0],
                line=where[1],
                suggestion="fix the profile or its flavour layer",
            )
        if knob is not None and domain in ("ceph", "mysql") and not knob.exists_in(release):
            raise DataError(
                f"{s.key!r} does not exist in {release}",
                file=where[0],
                line=where[1],
                suggestion=f"move it to a release-/flavour- layer that has it"
                f"{f'; renamed to {knob.renamed_to}' if knob.renamed_to else ''}",
            )
        if knob is not None and not s.unsafe_opt_in and knob.unsafe(s.value):
            raise DataError(
                f"{s.key} = {s.value} is {knob.safety if knob.safety != 'safe' else 'unsafe'} "
                "and may only be emitted with --allow-unsafe",
                file=where[0],
                line=where[1],
                suggestion="move the value under 'unsafe:' in the profile",
            )
        if knob is not None and not bundle.legacy and not s.unsafe_opt_in:
            default = knob.default_for(release)
            if knob.is_default(s.value, release):
                bundle.omitted.append(
                    {
                        "file": s.file,
                        "section": s.section,
                        "key": s.key,
                        "why": f"equals the {release} default ({default}): a no-op line",
                    }
                )
                continue
        kept.append(s)
    bundle.settings[:] = kept


def _host_ram_gib(bundle: Bundle, host: str) -> float:
    """RAM of the machine a file is installed on: the OSD node, or the database host (its own machine)."""
    if host == "db-host":
        return float(bundle.shape["db_ram_gib"])
    if host == "client":
        return float(bundle.shape["client_ram_gib"])
    return bundle.hardware.ram_gib


def validate_bundle(bundle: Bundle) -> None:
    """Re-parse and lint every emitted file for its release, with the RAM of the host it is for; collect
    the findings for the manifest."""

    req = bundle.request
    allowed = {s.key for s in bundle.settings if s.unsafe_opt_in}
    report: dict[str, list[str]] = {}
    for name, text in bundle.files.items():
        fmt = BY_KIND.get(bundle.kinds.get(name, ""))
        if fmt is None or fmt.lint_kind is None:
            if name.endswith(".json"):
                json.loads(text)
            continue
        ctx = {
            "ram_bytes": int(_host_ram_gib(bundle, fmt.host) * GiB),
            "failure_domains": bundle.shape["nodes"],
        }
        findings = lint_text(
            text,
            fmt.lint_kind,
            filename=name,
            ceph_release=req.ceph_release,
            mysql_flavour=req.mysql_flavour,
            context=ctx,
        )
        errors = [f for f in findings if f.severity == "error" and f.key not in allowed]
        if errors and not bundle.legacy:
            f = errors[0]
            raise DataError(
                f"the compiled {name} fails its own lint check: {f.code} {f.message}",
                file=name,
                line=f.line,
                suggestion="this is a flashtune bug; please report the command line",
            )
        report[name] = [f"{f.severity} {f.code} {f.key}: {f.message}" for f in findings]
    bundle.lint = report
