"""The reference grammars in pyparsing for the hand-written ceph.conf and my.cnf scanners (flashtune.parse):
the same rules stated declaratively; the parser tests run both over the same texts and require one result."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import pyparsing as pp

from flashtune.parse.cephconf import normalize_key
from flashtune.parse.confdoc import BLANKS, ConfSyntaxError
from flashtune.parse.mycnf import _unescape as mycnf_unescape


def cephconf_pyparsing(text: str, filename: str = "<string>") -> list[tuple[str, str, str]]:
    """The reference grammar in pyparsing: returns (section, key, value) triples or raises ConfSyntaxError.

    Slower than `parse`; tests run both over the same corpus and require the same result.
    """
    try:
        res: Any = _cephconf_grammar().parse_string(text, parse_all=True)
    except pp.ParseBaseException as e:
        raise ConfSyntaxError(f"parse error: {e.msg}", file=filename, line=e.lineno, column=e.col) from None

    def unescape(s: str) -> str:
        out: list[str] = []
        i = 0
        while i < len(s):
            if s[i] == "\\" and i + 1 < len(s):
                if s[i + 1] != "\n":
                    out.append(s[i + 1])
                i += 2
            else:
                out.append(s[i])
                i += 1
        return "".join(out)

    def item(g: Any, sec: str) -> tuple[str, str, str]:
        key = normalize_key(unescape(str(g["key"])))
        v = unescape(str(g["q"])[1:-1]) if "q" in g else unescape(str(g.get("u", ""))).strip(BLANKS)
        return (sec, key, v)

    triples: list[tuple[str, str, str]] = []
    if "headerless" in res:
        triples.append(item(res["headerless"][0], "global"))
    for sec in res.get("sections", []):
        name = unescape(str(sec["name"]))
        for g in sec["body"]:
            if isinstance(g, pp.ParseResults) and "key" in g:
                triples.append(item(g, name))
    return triples


@lru_cache(maxsize=1)
def _cephconf_grammar() -> Any:
    pp.ParserElement.set_default_whitespace_chars(" \t\r\f\v")
    try:
        esc = pp.Regex(r"\\(\n|.)")
        cont = pp.Regex(r"\\\n").suppress()
        comment = pp.Regex(r"[#;][^\n]*").suppress()
        nl = pp.Literal("\n").suppress()
        # a whole-line comment may end the file without a newline; nothing else may
        empty_line = (pp.Optional(comment) + nl) | (comment + pp.StringEnd().leave_whitespace())
        # before the first heading Ceph takes empty or comment lines, not blank-only ones
        pre_line = (
            pp.Regex(r"([ \t\r\f\v]*[#;][^\n]*)?\n|[ \t\r\f\v]*[#;][^\n]*\Z").leave_whitespace().suppress()
        )
        sec_text = pp.Combine(pp.OneOrMore(esc | pp.Regex(r"[^\\\]\n#;\[]+")))
        heading = (
            pp.LineStart()
            + pp.Suppress(pp.Literal("[").leave_whitespace())
            - sec_text("name")
            - pp.Suppress("]")
            - (pp.Optional(comment) + nl)
        )
        # a key holds at least one character that is not a line continuation: Ceph refuses `\<newline>=`
        key_char = pp.Regex(r"\\[^\n]") | pp.Regex(r"[^=\\\n#;\[]+")
        key_text = pp.Combine(pp.ZeroOrMore(cont) + key_char + pp.ZeroOrMore(cont | esc | key_char))
        qval = pp.Regex(r'"((?:\\[^\n]|[^"\\\n#;])*)"|\'((?:\\[^\n]|[^\'\\\n#;])*)\'')
        uval = pp.Combine(pp.ZeroOrMore(cont | esc | pp.Regex(r"[^\\\n#;]+")))
        value = qval("q") | (~pp.Char("\"'") + uval("u"))
        key_line = pp.Group(
            ~pp.Literal("[") + key_text("key") + pp.Suppress("=") - value + pp.Optional(comment) + nl
        )
        section = pp.Group(heading + pp.Group(pp.ZeroOrMore(key_line | empty_line))("body"))
        conf = (
            pp.Group(key_line)("headerless") + pp.ZeroOrMore(empty_line) + pp.StringEnd().leave_whitespace()
        ) | (pp.ZeroOrMore(pre_line) + pp.ZeroOrMore(section)("sections") + pp.StringEnd().leave_whitespace())
        return conf.parse_with_tabs()  # pyparsing would otherwise expand tabs inside values
    finally:
        pp.ParserElement.set_default_whitespace_chars(" \n\t\r")


@lru_cache(maxsize=1)
def _mycnf_grammar() -> Any:
    """The same rules as `parse` in pyparsing, one line at a time (MySQL reads option files line by line)."""
    pp.ParserElement.set_default_whitespace_chars(" \t\r\f\v")
    try:
        rest = pp.Regex(r".*")
        skip = pp.Regex(r"[#;].*") | pp.StringEnd()
        group = (
            pp.Suppress("[")
            + pp.Regex(r"[^\]]*").leave_whitespace()("group")
            + pp.Suppress("]")
            + rest.suppress()
        )
        directive = pp.Regex(r"!include(dir)?(?=\s|$)")("directive") + rest("arg")
        other_directive = pp.Regex(r"!.*").suppress()
        value = pp.Regex(r"""(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^#"'])*(?:["'].*)?""")("value")
        option = pp.Regex(r"[^=]*?(?=[ \t\r\f\v]*=)")("key") + pp.Suppress("=") + value + rest.suppress()
        bare = pp.Regex(r".+")("bare")
        line = skip | group | directive | other_directive | option | bare
        return line.parse_with_tabs()  # pyparsing would otherwise expand tabs inside values
    finally:
        pp.ParserElement.set_default_whitespace_chars(" \n\t\r")


def mycnf_pyparsing(text: str, filename: str = "<string>") -> list[tuple[str, str, str | None]]:
    """Reference grammar: (group, raw key, value) triples, or ConfSyntaxError; tests require it to agree with `parse`."""
    grammar = _mycnf_grammar()
    group: str | None = None
    out: list[tuple[str, str, str | None]] = []
    for no, line in enumerate(text.split("\n"), 1):
        body = line.strip(BLANKS)
        res = grammar.parse_string(body)
        if body[:1] == "[" and "group" not in res:
            raise ConfSyntaxError("wrong group definition", file=filename, line=no)
        if "group" in res:
            group = str(res["group"]).rstrip(BLANKS).lower()
            continue
        if not ("key" in res or "bare" in res):
            continue  # comment, blank line or directive
        if group is None:
            raise ConfSyntaxError("option without a preceding [group]", file=filename, line=no)
        if "bare" in res:
            out.append((group, str(res["bare"]), None))
            continue
        v = str(res["value"]).rstrip(BLANKS)
        if len(v) >= 2 and v[0] in "\"'" and v[-1] == v[0]:
            v = v[1:-1]
        out.append((group, str(res["key"]).rstrip(BLANKS), mycnf_unescape(v)))
    return out
