"""sysctl.conf / sysctl.d parser with procps-ng `sysctl -p` rules.

- lines starting (after blanks) with `#` or `;` are comments; there are no inline comments.
- `key = value`; blanks around `=` are dropped. A leading `-` on the key means "ignore errors for it".
- keys use `.` or `/` as separator: `net/ipv4/ip_forward` is `net.ipv4.ip_forward` (a `.` inside a
  slash-style key is part of a name, e.g. an interface `eth0.100`, and is kept as `/` in the dotted form).
- values may hold several numbers (`kernel.sem = 250 32000 100 128`); the kernel splits on blanks.
- a line without `=` is skipped by sysctl with a warning; here it is a problem recorded on the document,
  except `-key` alone, which keeps glob patterns off that key (sysctl.d(5) in systemd's man/sysctl.d.xml; procps
  4.0.2's `sysctl --dry-run -p` honours it too): an entry without a value, flagged `glob-exclude`.
- keys may be glob(7) patterns (`net.ipv4.conf.*.rp_filter`), expanded by systemd-sysctl and procps 4 alike:
  kept as written, the linter matches them against the name lists.
"""

from __future__ import annotations

from flashtune.parse.confdoc import BLANKS, ConfDoc, ConfSyntaxError, Entry, content_lines

_WS = BLANKS
_EXCLUDE = ("ignore-errors", "glob-exclude")


def normalize_key(raw: str) -> str:
    key = raw.strip(_WS)
    if "/" in key:
        key = key.replace(".", "\x00").replace("/", ".").replace("\x00", "/")
    return key


def parse(text: str, filename: str = "<string>", *, recover: bool = False) -> ConfDoc:
    del recover  # sysctl always goes on after a bad line (recorded in doc.problems), as `sysctl -p` does
    doc = ConfDoc(kind="sysctl.conf", filename=filename)
    for no, lead, body in content_lines(text):
        eq = body.find("=")
        if eq < 0 and body.startswith("-") and body[1:].strip(_WS) and not any(c in body for c in _WS):
            raw = body[1:]
            doc.entries.append(
                Entry("", normalize_key(raw), raw, None, no, lead + 2, no, lead + 2, flags=_EXCLUDE)
            )
            continue
        if eq < 0:
            doc.problems.append(
                ConfSyntaxError(
                    "no '=' in this line: sysctl skips it",
                    file=filename,
                    line=no,
                    column=lead + 1,
                    suggestion="write `key = value`",
                )
            )
            continue
        raw_key = body[:eq].rstrip(_WS)
        flags: tuple[str, ...] = ()
        kcol = lead + 1
        if raw_key.startswith("-"):
            flags = ("ignore-errors",)
            raw_key = raw_key[1:].lstrip(_WS)
            kcol = lead + 1 + (body.find(raw_key) if raw_key else 1)
        key = normalize_key(raw_key)
        if not key:
            doc.problems.append(
                ConfSyntaxError(
                    "missing key before '='",
                    file=filename,
                    line=no,
                    column=lead + eq + 1,
                    suggestion="write `key = value`",
                )
            )
            continue
        rest = body[eq + 1 :]
        vlead = len(rest) - len(rest.lstrip(_WS))
        value = rest.strip(_WS)
        doc.entries.append(Entry("", key, raw_key, value, no, kcol, no, lead + eq + 2 + vlead, flags=flags))
    doc.line_count = text.count("\n") + 1 - (1 if text.endswith("\n") else 0)
    return doc


def render(doc: ConfDoc) -> str:
    out = []
    for e in doc.entries:
        prefix = "-" if "ignore-errors" in e.flags else ""
        if "glob-exclude" in e.flags:
            out.append(f"-{e.key}\n")
            continue
        out.append(f"{prefix}{e.key} = {e.value or ''}\n")
    return "".join(out)
