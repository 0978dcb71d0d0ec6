"""ceph.conf parser following Ceph's own grammar (src/common/ConfUtils.cc), checked against real ceph-conf.

Rules (see the reference notes; each was probed with ceph-conf 16.2.15):
- `#` and `;` start comments anywhere outside quotes; `\\x` escapes any char; backslash-newline joins lines.
- keys: whitespace runs become `_`; no dash or case folding. Values: trimmed; quoted only if they start
  with a quote; a comment char inside quotes is an error; nothing but a comment may follow the close quote.
- `[section]` headings start in column 1; repeated sections merge; the last duplicate key wins.
- every line ends with a newline; a single `key = value` first line without any heading is `[global]`.
- non-ASCII text outside comments makes Ceph 16.2 abort (an assertion in its parser), so it is an error here.
The scanner below is hand-written (linting 100k lines must stay well under a second); the tests hold the same
rules as a pyparsing grammar (tests/support/grammars.py) and require both to agree.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from flashtune.parse.confdoc import ConfDoc, ConfSyntaxError, Entry, Section

_COMMENT = "#;"
_BLANK = " \t\r\f\v"
MAX_PROBLEMS = 1000  # a file with more syntax errors than this is not a ceph.conf; stop listing them


def normalize_key(raw: str) -> str:
    return "_".join(raw.split())


# A `key = value  # comment` line: leading blanks, the key (no = # ; [, not starting or ending with a blank),
# '=', the value (no # or ;) and an optional comment
_KEY_LINE = re.compile(
    r"[ \t]*([^=#;\[ \t\r\f\v](?:[^=#;\[]*[^=#;\[ \t\r\f\v])?)[ \t\r\f\v]*(=)[ \t\r\f\v]*([^#;]*?)[ \t\r\f\v]*(?:[#;].*)?"
)


def simple_key_line(line: str) -> tuple[str, int, str, int] | None:
    """(key, its column, value, its column) of a `key = value  # comment` line without escapes or quotes (the
    caller checked), or None for any other line (the general path reads it and says what is wrong). An empty
    value's column is the one just after the '='."""
    m = _KEY_LINE.fullmatch(line)
    if m is None:
        return None
    return m[1], m.start(1) + 1, m[3], m.start(3) + 1 if m[3] else m.end(2) + 1


@dataclass
class _Cursor:
    """Where the character scanner is: an offset into the text, its line number and where that line starts
    (a backslash-newline continues a line onto the next one)."""

    i: int
    line_no: int
    line_start: int

    def col(self) -> int:
        return self.i - self.line_start + 1

    def next_line(self, start: int) -> None:
        """Go on at `start`, the first character of the next line."""
        self.i = self.line_start = start
        self.line_no += 1


class _Scanner:
    def __init__(self, text: str, filename: str) -> None:
        self.text = text
        self.filename = filename
        self.doc = ConfDoc(kind="ceph.conf", filename=filename)
        self.section: str | None = None
        self.headerless = False
        self.resume = (0, 1)  # where scan() starts: (offset, line number)

    def fail(self, message: str, line: int, column: int, suggestion: str | None = None) -> ConfSyntaxError:
        return ConfSyntaxError(message, file=self.filename, line=line, column=column, suggestion=suggestion)

    def run(self, recover: bool = False) -> ConfDoc:
        """Scan the file; with recover, record each syntax error in doc.problems and go on with the next line."""
        while True:
            try:
                return self.scan()
            except ConfSyntaxError as err:
                if not recover or len(self.doc.problems) >= MAX_PROBLEMS:
                    raise
                self.doc.problems.append(err)
                if self.headerless:  # one report is enough: read the rest as if [global] headed the file
                    self.headerless, self.section = False, self.section or "global"
                self.resume = self.line_start(int(err.line or 1) + 1)

    def line_start(self, line_no: int) -> tuple[int, int]:
        """(offset, number) of line line_no, searched from where the last scan started."""
        pos, no = self.resume
        text = self.text
        while no < line_no:
            nl = text.find("\n", pos)
            if nl < 0:
                return len(text), no
            pos, no = nl + 1, no + 1
        return pos, no

    def scan(self) -> ConfDoc:
        text = self.text
        n = len(text)
        pos, line_no = self.resume
        while pos < n:
            nl = text.find("\n", pos)
            if nl < 0 and text[pos:].strip()[:1] in ("#", ";"):
                break  # Ceph accepts a whole-line comment without a newline at the very end
            if nl < 0:
                raise self.fail(
                    "the last line has no newline at its end; Ceph rejects the whole file",
                    line_no,
                    n - pos + 1,
                    "end the file with a newline",
                )
            line = text[pos:nl]
            stripped = line.strip()
            if not stripped:
                if line and self.section is None and not self.headerless:
                    raise self.fail(
                        "a line of only blanks before the first [section] is a parse error in Ceph",
                        line_no,
                        1,
                        "delete the blanks or the line",
                    )
            elif stripped[0] in _COMMENT:
                pass
            elif "\\" in line or '"' in line or "'" in line:
                pos, line_no = self.slow_line(pos, line_no)
                continue
            elif line[0] == "[":
                self.fast_section(line, line_no)
            else:
                self.fast_key(line, line_no)
            pos = nl + 1
            line_no += 1
        self.doc.line_count = line_no - 1
        return self.doc

    # -- fast paths: lines without escapes or quotes
    def start_key_line(self, line_no: int, column: int) -> str:
        if self.headerless:
            raise self.fail(
                "text after a section-less `key = value` line: Ceph accepts only a single such line",
                line_no,
                column,
                "put a [global] heading at the top of the file",
            )
        if self.section is None:
            if line_no != 1:
                raise self.fail(
                    "`key = value` before the first [section] (only allowed as the file's first line)",
                    line_no,
                    column,
                    "add a [global] heading above it",
                )
            self.headerless = True
            return "global"
        return self.section

    def fast_section(self, line: str, line_no: int) -> None:
        close = line.find("]")
        name = line[1:close] if close > 0 else ""
        bad = next((i for i, c in enumerate(name) if c in _COMMENT or c == "["), -1)
        if close < 0 or bad >= 0:
            col = (bad + 2) if bad >= 0 else len(line) + 1
            raise self.fail("section heading without its closing ']'", line_no, col, "write it as [name]")
        if not name:
            raise self.fail("empty section name '[]'", line_no, 2, "name the section, e.g. [global]")
        rest = line[close + 1 :].lstrip(_BLANK)
        if rest and rest[0] not in _COMMENT:
            raise self.fail(
                "text after a section heading",
                line_no,
                close + 2 + (len(line) - close - 1 - len(rest)),
                "only a comment may follow ']'",
            )
        self.check_ascii(name, line_no, 2)
        if self.headerless:
            raise self.fail(
                "a [section] after a section-less first line: Ceph rejects the file",
                line_no,
                1,
                "put a [global] heading at the top of the file",
            )
        self.section = name
        self.doc.sections.append(Section(name, line_no, 1))

    def fast_key(self, line: str, line_no: int) -> None:
        m = simple_key_line(line) if line.isascii() else None
        if m is not None and self.section is not None:
            # the common case: `  key words = value  # comment`
            raw_key, key_col, value, value_col = m
            key = raw_key if " " not in raw_key and "\t" not in raw_key else normalize_key(raw_key)
            self.doc.entries.append(
                Entry(self.section, key, raw_key, value, line_no, key_col, line_no, value_col)
            )
            return
        lead = len(line) - len(line.lstrip())
        if line.lstrip().startswith("["):
            raise self.fail(
                "section headings must start in column 1",
                line_no,
                lead + 1,
                "remove the indentation before '['",
            )
        cut = len(line)
        for c in _COMMENT:
            i = line.find(c)
            if 0 <= i < cut:
                cut = i
        body = line[:cut]
        eq = body.find("=")
        if eq < 0:
            col = cut + 1 if cut < len(line) else len(line.rstrip()) + 1
            raise self.fail(
                "expected '=' in a `key = value` line",
                line_no,
                col,
                "write `key = value`, or comment the line out with #",
            )
        raw_key = body[:eq]
        key = normalize_key(raw_key)
        if not key:
            raise self.fail("missing key before '='", line_no, eq + 1, "write `key = value`")
        if "[" in raw_key:
            raise self.fail("'[' is not allowed in a key", line_no, raw_key.index("[") + 1)
        self.check_ascii(body, line_no, 1)
        section = self.start_key_line(line_no, lead + 1)
        vraw = body[eq + 1 :]
        vlead = len(vraw) - len(vraw.lstrip())
        value = vraw.strip()
        self.doc.entries.append(
            Entry(
                section,
                key,
                raw_key.strip(),
                value,
                line_no,
                lead + 1,
                line_no,
                eq + 2 + vlead if value else eq + 2,
            )
        )

    def check_ascii(self, s: str, line_no: int, base_col: int) -> None:
        if not s.isascii():
            i = next(i for i, c in enumerate(s) if not c.isascii())
            raise self.fail(
                f"non-ASCII character {s[i]!r} outside a comment: Ceph's parser aborts on it",
                line_no,
                base_col + i,
                "use ASCII only in keys, values and section names",
            )

    # -- slow path: a character scanner for escapes, quotes and continuation lines
    def slow_line(self, pos: int, line_no: int) -> tuple[int, int]:
        """One line (with its continuations) starting at offset pos: (offset of the next line, its number)."""
        text, n = self.text, len(self.text)
        cur = _Cursor(pos, line_no, pos)
        while cur.i < n and text[cur.i] in _BLANK:
            cur.i += 1
        if text[cur.i] == "[":
            return self.slow_section(cur, pos)
        key_line, key_col = cur.line_no, cur.col()
        raw_key, escaped = self.slow_key(cur)
        key = normalize_key(raw_key)
        if not key and not escaped:
            raise self.fail("missing key before '='", cur.line_no, cur.col(), "write `key = value`")
        self.check_ascii(raw_key, key_line, key_col)
        section = self.start_key_line(key_line, key_col)
        cur.i += 1
        while cur.i < n and (text[cur.i] in _BLANK or text.startswith("\\\n", cur.i)):
            if text[cur.i] == "\\":
                cur.next_line(cur.i + 2)
            else:
                cur.i += 1
        vline, vcol = cur.line_no, cur.col()
        quoted = cur.i < n and text[cur.i] in "\"'"
        value = self.quoted_value(cur) if quoted else self.plain_value(cur)
        self.check_ascii(value, vline, vcol)
        self.doc.entries.append(
            Entry(section, key, raw_key.strip(), value, key_line, key_col, vline, vcol, quoted=quoted)
        )
        return cur.i + 1, cur.line_no + 1

    def slow_section(self, cur: _Cursor, pos: int) -> tuple[int, int]:
        """A `[name]` heading (escapes allowed) at cur.i; the line must start with it."""
        text, n = self.text, len(self.text)
        if cur.i != pos:
            raise self.fail(
                "section headings must start in column 1",
                cur.line_no,
                cur.col(),
                "remove the indentation before '['",
            )
        name: list[str] = []
        cur.i += 1
        while True:
            c = text[cur.i] if cur.i < n else "\n"
            if c == "\\" and cur.i + 1 < n and text[cur.i + 1] != "\n":
                name.append(text[cur.i + 1])
                cur.i += 2
            elif c == "]":
                break
            elif c in "\n[" or c in _COMMENT:
                raise self.fail(
                    "section heading without its closing ']'", cur.line_no, cur.col(), "write it as [name]"
                )
            else:
                name.append(c)
                cur.i += 1
        sname = "".join(name)
        if not sname:
            raise self.fail(
                "empty section name '[]'", cur.line_no, cur.col(), "name the section, e.g. [global]"
            )
        self.check_ascii(sname, cur.line_no, 2)
        i = self.end_of_line(cur.i + 1, cur.line_no, cur.line_start, "only a comment may follow ']'")
        if self.headerless:
            raise self.fail(
                "a [section] after a section-less first line: Ceph rejects the file",
                cur.line_no,
                1,
                "put a [global] heading at the top of the file",
            )
        self.section = sname
        self.doc.sections.append(Section(sname, cur.line_no, 1))
        return i + 1, cur.line_no + 1

    def slow_key(self, cur: _Cursor) -> tuple[str, bool]:
        """The key up to its '=' (left at cur.i), unescaped, and whether it held an escape: `\\ = x` is a key
        Ceph accepts although it normalises to nothing (probed, ceph-conf 16.2)."""
        text, n = self.text, len(self.text)
        kchars: list[str] = []
        escaped = False
        while True:
            c = text[cur.i] if cur.i < n else "\n"
            if c == "\\" and cur.i + 1 < n and text[cur.i + 1] == "\n":
                cur.next_line(cur.i + 2)
            elif c == "\\" and cur.i + 1 < n:
                kchars.append(text[cur.i + 1])
                escaped = True
                cur.i += 2
            elif c == "=":
                return "".join(kchars), escaped
            elif c == "\n" or c in _COMMENT:
                raise self.fail(
                    "expected '=' in a `key = value` line",
                    cur.line_no,
                    cur.col(),
                    "write `key = value`, or comment the line out with #",
                )
            elif c == "[":
                raise self.fail("'[' is not allowed in a key", cur.line_no, cur.col())
            else:
                kchars.append(c)
                cur.i += 1

    def quoted_value(self, cur: _Cursor) -> str:
        """A value in quotes starting at cur.i; cur.i is left at the newline ending the line."""
        text, n = self.text, len(self.text)
        q = text[cur.i]
        vchars: list[str] = []
        cur.i += 1
        while True:
            c = text[cur.i] if cur.i < n else "\n"
            if c == "\\" and cur.i + 1 < n and text[cur.i + 1] != "\n":
                vchars.append(text[cur.i + 1])
                cur.i += 2
            elif c == q:
                break
            elif c == "\\" or c == "\n":
                raise self.fail(
                    f"unterminated quoted value (no closing {q})",
                    cur.line_no,
                    cur.col(),
                    f"close the quote with {q}; continuation lines do not work inside quotes",
                )
            elif c in _COMMENT:
                raise self.fail(
                    f"unescaped {c!r} inside a quoted value: Ceph rejects it",
                    cur.line_no,
                    cur.col(),
                    f"write \\{c}",
                )
            else:
                vchars.append(c)
                cur.i += 1
        cur.i = self.end_of_line(
            cur.i + 1, cur.line_no, cur.line_start, "only a comment may follow the closing quote"
        )
        return "".join(vchars)

    def plain_value(self, cur: _Cursor) -> str:
        """An unquoted value (escapes, continuations, a trailing comment) from cur.i to the newline ending it."""
        text, n = self.text, len(self.text)
        vchars: list[str] = []
        while True:
            c = text[cur.i] if cur.i < n else "\n"
            if c == "\\" and cur.i + 1 < n and text[cur.i + 1] == "\n":
                cur.next_line(cur.i + 2)
            elif c == "\\" and cur.i + 1 < n:
                vchars.append(text[cur.i + 1])
                cur.i += 2
            elif c == "\\":
                raise self.fail(
                    "the file ends inside a line continuation",
                    cur.line_no,
                    cur.col(),
                    "end the file with a newline",
                )
            elif c in _COMMENT:
                nl = text.find("\n", cur.i)
                cur.i = nl if nl >= 0 else n
            elif c == "\n":
                break
            else:
                vchars.append(c)
                cur.i += 1
        if cur.i >= n:
            raise self.fail(
                "the last line has no newline at its end; Ceph rejects the whole file",
                cur.line_no,
                cur.col(),
                "end the file with a newline",
            )
        return "".join(vchars).strip(_BLANK)

    def end_of_line(self, i: int, line_no: int, line_start: int, hint: str) -> int:
        """Skip blanks and a comment; return the index of the newline ending the line."""
        text = self.text
        n = len(text)
        while i < n and text[i] in _BLANK:
            i += 1
        if i < n and text[i] in _COMMENT:
            nl = text.find("\n", i)
            i = nl if nl >= 0 else n
        if i >= n:
            raise self.fail(
                "the last line has no newline at its end; Ceph rejects the whole file",
                line_no,
                i - line_start + 1,
                "end the file with a newline",
            )
        if text[i] != "\n":
            raise self.fail("unexpected text", line_no, i - line_start + 1, hint)
        return i


def parse(text: str, filename: str = "<string>", *, recover: bool = False) -> ConfDoc:
    """The file's model, or ConfSyntaxError at the first error; recover=True collects every error in
    doc.problems (Ceph itself rejects the whole file on the first one)."""
    return _Scanner(text, filename).run(recover)


def lookup(doc: ConfDoc, name: str, key: str) -> Entry | None:
    """The entry a daemon `name` (e.g. osd.0) reads for key: [type.id] beats [type] beats [global]."""
    eff = doc.effective()
    typ = name.split(".", 1)[0]
    for section in (name, typ, "global"):
        e = eff.get(section, {}).get(normalize_key(key))
        if e is not None:
            return e
    return None


_META = re.compile(r"\$(?:\{([a-z_]+)\}|([a-z_]+))")  # $name or ${name}


def expand_meta(
    value: str,
    *,
    name: str = "client.admin",
    cluster: str = "ceph",
    host: str = "",
    option: Callable[[str], str | None] = lambda _k: None,
    _seen: tuple[str, ...] = (),
) -> str:
    """Ceph's `$var` / `${var}` expansion (md_config_t::_expand_meta) as a daemon `name` would see it.

    Built-ins: $cluster $type $id $num $name $host; any other name is looked up with `option` (return None
    for names that are not options: Ceph leaves those, and a lone `$`, literal). A loop is left unexpanded.
    """
    typ, _, ident = name.partition(".")
    builtins = {"cluster": cluster, "type": typ, "id": ident, "num": ident, "name": name}
    if host:
        builtins["host"] = host

    def sub(m: re.Match[str]) -> str:
        var = m[1] or m[2]
        if var in builtins:
            return builtins[var]
        if var in _seen:
            return m[0]
        raw = option(var)
        if raw is None:
            return m[0]
        return expand_meta(raw, name=name, cluster=cluster, host=host, option=option, _seen=(*_seen, var))

    return _META.sub(sub, value)


def _needs_quotes(value: str) -> bool:
    return value != value.strip() or (value[:1] != "" and value[0] in "\"'")


def _escape(value: str) -> str:
    out = value.replace("\\", "\\\\").replace("#", "\\#").replace(";", "\\;")
    return out


def render(doc: ConfDoc) -> str:
    """Write a ConfDoc back as ceph.conf text that parses to the same model (sections merged in order)."""
    lines: list[str] = []
    by_section: dict[str, list[Entry]] = {}
    for name in doc.section_names():
        by_section[name] = []
    for e in doc.entries:
        by_section[e.section].append(e)
    for name, entries in by_section.items():
        esc = name.replace("\\", "\\\\").replace("]", "\\]").replace("#", "\\#").replace(";", "\\;")
        lines.append(f"[{esc}]")
        for e in entries:
            v = e.value or ""
            v = '"' + _escape(v).replace('"', '\\"') + '"' if _needs_quotes(v) else _escape(v)
            k = e.key.replace("\\", "\\\\").replace("#", "\\#").replace(";", "\\;")
            lines.append(f"{k} = {v}")
    return "".join(line + "\n" for line in lines)
