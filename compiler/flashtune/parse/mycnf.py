"""my.cnf parser with MySQL/MariaDB option-file rules (mysys/my_default.c), checked against my_print_defaults.

- blank lines and lines starting with `#` or `;` are skipped; `[group]` names match case-insensitively.
- `name = value` or a bare `name` (the whole line, even with spaces, becomes the option name).
- `#` ends a value outside quotes; a value wrapped in matching quotes loses them; `\\n \\t \\r \\b \\s \\\\ \\" \\'`
  are escapes, any other backslash stays literal.
- dashes and underscores in names are the same option; `loose-` makes an unknown option a warning only.
- `!include FILE` / `!includedir DIR` are recorded (a missing dir is fatal for MySQL; the linter says so).
- an option before any group is fatal ("Found option without preceding group").
`parse` is a hand-written scanner; the tests state the same rules as a pyparsing grammar
(tests/support/grammars.py) and require both to agree (and `parse` to agree with the real my_print_defaults).
"""

from __future__ import annotations

from flashtune.catalog.spelling import mysql_key
from flashtune.parse.confdoc import BLANKS, ConfDoc, ConfSyntaxError, Entry, Section, content_lines

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "s": " ", "\\": "\\", '"': '"', "'": "'"}
_WS = BLANKS


# (canonical name, loose?): the catalog's my.cnf spelling rule, shared with the linter and the compiler
normalize_key = mysql_key


def _unescape(value: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(value):
        c = value[i]
        if c == "\\" and i + 1 < len(value):
            nxt = value[i + 1]
            out.append(_ESCAPES.get(nxt, "\\" + nxt))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _cut_comment(value: str) -> str:
    """mysys remove_end_comment: `#` outside quotes ends the value; a backslash escapes only inside quotes."""
    quote = ""
    escape = False
    for i, c in enumerate(value):
        if c in "\"'" and not escape:
            if not quote:
                quote = c
            elif quote == c:
                quote = ""
        if not quote and c == "#":
            return value[:i]
        escape = bool(quote) and c == "\\" and not escape
    return value


def parse(text: str, filename: str = "<string>", *, recover: bool = False) -> ConfDoc:
    """The file's model; a syntax error raises ConfSyntaxError, or with recover=True is recorded in
    doc.problems and the line skipped (MySQL itself refuses the whole file)."""
    doc = ConfDoc(kind="my.cnf", filename=filename)

    def problem(err: ConfSyntaxError) -> None:
        if not recover:
            raise err
        doc.problems.append(err)

    group: str | None = None
    for no, lead, body in content_lines(text):
        if body[0] == "!":
            word, _, arg = body.partition(" ")
            if word not in ("!include", "!includedir"):
                continue  # MySQL skips unknown directives silently
            arg = arg.strip(_WS)
            doc.includes.append(Entry(group or "", word, word, arg, no, lead + 1, no, lead + len(word) + 2))
            continue
        if body[0] == "[":
            close = body.find("]")
            if close < 0:
                problem(
                    ConfSyntaxError(
                        "wrong group definition: no closing ']'",
                        file=filename,
                        line=no,
                        column=lead + len(body) + 1,
                        suggestion="write it as [group]",
                    )
                )
                continue
            group = body[1:close].rstrip(_WS).lower()  # MySQL trims only trailing blanks
            doc.sections.append(Section(group, no, lead + 1))
            continue
        if group is None:
            problem(
                ConfSyntaxError(
                    "option without a preceding [group]: MySQL refuses the whole file",
                    file=filename,
                    line=no,
                    column=lead + 1,
                    suggestion="add a [mysqld] (or other) group above it",
                )
            )
            continue
        eq = body.find("=")
        if eq < 0:
            raw_key = body
            doc.entries.append(
                Entry(
                    group,
                    normalize_key(raw_key)[0],
                    raw_key,
                    None,
                    no,
                    lead + 1,
                    no,
                    lead + 1,
                    flags=("loose",) if normalize_key(raw_key)[1] else (),
                )
            )
            continue
        raw_key = body[:eq].rstrip(_WS)
        rest = body[eq + 1 :]
        vlead = len(rest) - len(rest.lstrip(_WS))
        value = _cut_comment(rest.lstrip(_WS)).rstrip(_WS)
        quoted = len(value) >= 2 and value[0] in "\"'" and value[-1] == value[0]
        if quoted:
            value = value[1:-1]
        key, loose = normalize_key(raw_key)
        doc.entries.append(
            Entry(
                group,
                key,
                raw_key,
                _unescape(value),
                no,
                lead + 1,
                no,
                lead + eq + 2 + vlead,
                quoted=quoted,
                flags=("loose",) if loose else (),
            )
        )
    doc.line_count = text.count("\n") + 1 - (1 if text.endswith("\n") else 0)
    return doc


def _escape(value: str) -> str:
    out = value.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")
    return out.replace("\b", "\\b")


def render(doc: ConfDoc) -> str:
    """my.cnf text that parses back to the same model; values are always quoted so `#` and blanks survive."""
    out: list[str] = []
    current: str | None = None
    for e in doc.entries:  # a new [group] line whenever the group changes keeps the order of options
        if e.section != current:
            out.append(f"[{e.section}]")
            current = e.section
        if e.value is None:
            out.append(e.raw_key)
        else:
            out.append(f'{e.raw_key} = "{_escape(e.value).replace(chr(34), chr(92) + chr(34))}"')
    for inc in doc.includes:
        out.append(f"{inc.key} {inc.value}")
    return "".join(line + "\n" for line in out)
