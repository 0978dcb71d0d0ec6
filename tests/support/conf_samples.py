"""Edge cases of the ceph.conf and my.cnf grammars, each read by our parsers and by the real programs."""

from __future__ import annotations

from pathlib import Path

# Edge cases of Ceph's grammar (ConfUtils.cc and its tests); each either parses or must be refused.
CEPH_CONF_CORPUS: list[tuple[str, str]] = [
    ("plain", "[global]\nfoo = 1\n[osd]\nbar = 2\n"),
    ("spaces-in-key", "[osd]\n  osd   max backfills = 3\n"),
    ("tabs", "[osd]\npid file\t=\tfoo2\n"),
    ("tab-inside-value", "[osd]\nfoo = a\tb\n"),
    ("inline-comments", "[osd]\nlog dir = out # a comment ;;; right?\nx = 1 ; y\n"),
    ("comment-after-heading", "[osd] # c\nfoo = 1\n"),
    ("escapes", "[osd]\na = a\\#b\nb = back\\\\slash\nc = semi\\;colon\n"),
    ("continuation", "[osd]\nbaz = one \\\n  two\npid = \\\n   spork\\\n\n"),
    ("double-quoted", '[osd]\nfoo = "a b"  ; c\n'),
    ("single-quoted", "[osd]\nfoo = 'x y'  # c\n"),
    ("escaped-hash-in-quotes", '[osd]\nfoo = "a \\# b"\n'),
    ("interior-quotes", '[osd]\nfoo = the "scare quotes" stay\n'),
    ("empty-values", '[osd]\nfoo =\nbar = ""\n'),
    ("equals-in-value", "[osd]\nfoo = a=b=c\n"),
    ("dup-key-last-wins", "[osd]\nfoo = 1\nfoo = 2\nosd max backfills = 3\nosd_max_backfills = 4\n"),
    ("repeated-section-merges", "[osd]\nfoo = 1\n[global]\nbar = 1\n[osd]\nfoo = 5\nbaz = 6\n"),
    ("headerless-single-line", "log dir = barfoo\n\n"),
    ("comments-before-heading", "# top\n; also\n  # indented comment\n\n[osd]\nfoo = 1\n"),
    ("blank-lines-in-section", "[osd]\nfoo = 1\n  \n\t\nbar = 2\n"),
    ("crlf", "[osd]\r\nfoo = 1\r\n"),
    ("bracket-in-key", "[osd]\nk]x = 1\n"),
    ("escaped-bracket-section", "[a\\]b]\nfoo = 1\n[osd]\nbar = 2\n"),
    ("section-with-space", "[os d]\nfoo = 1\n[osd]\nbar = 2\n"),
    ("dashes-kept", "[osd]\nosd-max-backfills = 1\n"),
    ("trailing-blanks", "[osd]\n  foo   =   1   \n[global]  \nbar = 2\n"),
    ("empty-file", ""),
    ("only-newline", "\n"),
    # refused by Ceph
    ("err-no-final-newline", "[global]\nlog dir = foobar"),
    ("err-no-equals", "[osd]\nfoo bar\n"),
    ("err-unclosed-heading", "[global\nfoo = 1\n"),
    ("err-empty-heading", "[osd]\n[]\nfoo = 1\n"),
    ("err-indented-heading", "[osd]\n   [global]\nfoo = 1\n"),
    ("err-text-after-heading", "[osd]x\nfoo = 1\n"),
    ("err-unterminated-quote", '[osd]\nfoo = "x\n'),
    ("err-hash-in-quotes", '[osd]\nfoo = "a # b"\n'),
    ("err-text-after-quote", '[osd]\nfoo = "x" y\n'),
    ("err-continuation-in-quotes", '[osd]\nfoo = "a\\\n b"\n'),
    ("err-key-after-headerless", "log dir = x\nother = y\n"),
    ("err-heading-after-headerless", "log dir = x\n[osd]\nfoo = 1\n"),
    ("err-headerless-not-first", "\n# c\nlog dir = x\n"),
    ("err-blank-line-before-heading", "  \n[osd]\nfoo = 1\n"),
    ("err-comment-in-key", "[osd]\nk#x = 1\n"),
    ("err-bracket-in-key", "[osd]\nk[x = 1\n"),
    ("err-continuation-at-eof", "[osd]\nfoo = x\\\n"),
    ("err-key-of-only-a-continuation", "\\\n=\n"),  # found by the fuzz test: Ceph wants a key character
    ("err-section-key-of-only-a-continuation", "[osd]\n\\\n= 1\n"),
    ("continuation-before-key", "\\\nfoo = 1\n"),
    ("comment-at-eof-without-newline", "[osd]\nfoo = 1\n  # c"),
    ("err-blank-at-eof-without-newline", "[osd]\nfoo = 1\n "),
    ("err-value-comment-at-eof-without-newline", "[osd]\nfoo = 1 # c"),
]


MYCNF_SEED = Path(__file__).parents[1] / "fixtures" / "seed-configs" / "000-my.cnf"


MYCNF_CORPUS: list[tuple[str, str]] = [
    ("comments-and-quotes", "[mysqld]\na = 1 # c\nb = x#y\nc = \"q # r\" # s\nd = 'sq'\n"),
    ("escapes", "[mysqld]\ne = tab\\there\nk = \\\\x\nn = new\\nline\ns = a\\sb\nq = keep\\qit\n"),
    (
        "bare-and-spaced",
        "[mysqld]\nskip-external-locking\n  indented = 5\nf=\ng key value\nl   =   spaced  \n",
    ),
    ("loose-and-dashes", "[mysqld]\nloose-h = 2\ninnodb-buffer-pool-size = 1G\n"),
    ("unterminated-quote", '[mysqld]\ni = "unterminated\nj = a "b" c\n'),
    (
        "groups-repeat-and-case",
        "[mysqld]\nm = 1\n[client]\nport=1\n[mysqld]\nm = again\n;c\n#c\n[Mysqld]\nn = case\n",
    ),
    ("no-final-newline", "[mysqld]\na=1"),
    ("tab-inside-value", "[mysqld]\nx = a\tb\n"),
    ("group-with-blanks", "[ mysqld ]\nx = 1\n[mysqld ]\ny = 2\n[mysqld] junk\nz = 3\n"),
]
