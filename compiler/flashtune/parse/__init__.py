"""Config parsers: ceph.conf, my.cnf, sysctl.conf and CBT YAML into one ConfDoc model with positions.

parse_text(text, kind, filename="<string>") -> ConfDoc      (raises ConfSyntaxError)
emit_text(doc) -> str                                        (round-trips to the same model)
"""

from __future__ import annotations

from flashtune.parse.confdoc import KINDS, ConfDoc, ConfSyntaxError, Entry, Section


def parse_text(text: str, kind: str, filename: str = "<string>") -> ConfDoc:
    if kind == "ceph.conf":
        from flashtune.parse import cephconf

        return cephconf.parse(text, filename)
    if kind == "my.cnf":
        from flashtune.parse import mycnf

        return mycnf.parse(text, filename)
    if kind == "sysctl.conf":
        from flashtune.parse import sysctl

        return sysctl.parse(text, filename)
    if kind == "cbt.yaml":
        from flashtune.parse import cbtyaml

        return cbtyaml.parse(text, filename)
    raise ValueError(f"unknown config kind {kind!r}; known: {', '.join(KINDS)}")


def emit_text(doc: ConfDoc) -> str:
    if doc.kind == "ceph.conf":
        from flashtune.parse import cephconf

        return cephconf.emit(doc)
    if doc.kind == "my.cnf":
        from flashtune.parse import mycnf

        return mycnf.emit(doc)
    if doc.kind == "sysctl.conf":
        from flashtune.parse import sysctl

        return sysctl.emit(doc)
    from flashtune.parse import cbtyaml

    return cbtyaml.emit(doc)


__all__ = ["KINDS", "ConfDoc", "ConfSyntaxError", "Entry", "Section", "emit_text", "parse_text"]
