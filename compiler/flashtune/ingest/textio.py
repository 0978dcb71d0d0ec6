"""Reading a result file's bytes as text whatever the machine that saved it did to them.

Benchmark outputs travel through Windows editors (UTF-8 BOM, UTF-16 from PowerShell's `>`), log
rotation (gzip) and terminals set to Latin-1 (a stray 0xB5 "µ" or 0xE9 in a host name). Each is read
here, and what was done is returned as a note so the CLI can say it; anything else that is not text is
refused with what it looks like, never decoded into garbage numbers.

Per-line prefixes added by launchers (`CPU 3: ...`, pdsh's `host: ...`, `[1,0]<stdout>:` from mpirun)
are removed when every non-blank line carries the same kind of prefix, so the tool's own layout is
what the parsers see.
"""

from __future__ import annotations

import gzip
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from flashtune.errors import FlashtuneError

GZIP_MAGIC = b"\x1f\x8b"
# magic numbers of things people pass by mistake: say what they are instead of "binary"
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"BZh", "a bzip2-compressed file"),
    (b"\xfd7zXZ\x00", "an xz-compressed file"),
    (b"PK\x03\x04", "a zip archive"),
    (b"\x28\xb5\x2f\xfd", "a zstd-compressed file"),
    (b"\x89PNG", "a PNG image"),
    (b"%PDF", "a PDF document"),
    (b"\x7fELF", "an executable (ELF)"),
    (b"SQLite format 3", "an SQLite database"),
)
_PREFIXES = (
    re.compile(r"^CPU\s*\d+\s*[:>|\]-]?\s?"),  # per-CPU tagged console captures
    re.compile(r"^\[\d+,\d+\]<std(?:out|err)>:\s?"),  # Open MPI --tag-output
    re.compile(r"^[A-Za-z0-9][\w.-]*:\s"),  # pdsh/clush "host: "
)


class NotText(FlashtuneError):
    """The file is not text (an image, an archive, binary data): a directory walk skips it."""


@dataclass
class Decoded:
    text: str
    notes: list[str] = field(default_factory=list)


def what_it_is(raw: bytes) -> str | None:
    """A name for well-known non-text content, from its first bytes."""
    for magic, name in _MAGIC:
        if raw.startswith(magic):
            return name
    return None


def gunzip(raw: bytes, path: Path, limit: int) -> bytes:
    try:
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        out = d.decompress(raw, limit + 1)
    except zlib.error as e:
        raise FlashtuneError(
            f"gzip data is corrupt: {e}",
            file=str(path),
            suggestion="re-copy the file; `gzip -t FILE` checks it",
        ) from None
    if len(out) > limit:
        raise FlashtuneError(
            f"gzip file expands to more than {limit} bytes",
            file=str(path),
            suggestion="decompress it and pass the parts, or check it is a result file",
        )
    if not d.eof:
        raise FlashtuneError(
            "gzip file is cut off (no end of stream)",
            file=str(path),
            suggestion="re-copy the file; `gzip -t FILE` checks it",
        )
    return out


def decode(raw: bytes, path: Path, *, limit: int) -> Decoded:
    """Bytes of a result file -> text plus notes on how it was read, or a FlashtuneError saying what it is."""
    notes: list[str] = []
    if raw.startswith(GZIP_MAGIC):
        raw = gunzip(raw, path, limit)
        notes.append("gzip-compressed: decompressed")
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
        notes.append("UTF-8 with byte-order mark")
    elif raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return Decoded(_newlines(raw.decode("utf-16")), [*notes, "UTF-16 text: decoded"])
        except UnicodeDecodeError:
            raise FlashtuneError(
                "starts with a UTF-16 byte-order mark but is not valid UTF-16",
                file=str(path),
                suggestion="save the output as UTF-8",
            ) from None
    elif len(raw) >= 4 and raw[1:4:2] == b"\x00\x00" and raw[0:3:2] != b"\x00\x00":
        try:  # UTF-16LE without a BOM: every second byte of ASCII text is NUL
            text = raw.decode("utf-16-le")
            if text.isprintable() or all(c.isprintable() or c in "\r\n\t" for c in text[:4096]):
                return Decoded(_newlines(text), [*notes, "UTF-16LE text without byte-order mark: decoded"])
        except UnicodeDecodeError:
            pass
    if b"\x00" in raw:
        kind = what_it_is(raw) or "binary data (NUL bytes), not a benchmark's text output"
        line = raw[: raw.index(b"\x00")].count(b"\n") + 1
        raise NotText(
            f"this is {kind}",
            file=str(path),
            line=line,
            suggestion="pass the tool's text or JSON output (gzip-compressed is fine)",
        )
    magic = what_it_is(raw)
    if magic:
        raise NotText(
            f"this is {magic}",
            file=str(path),
            line=1,
            suggestion="unpack it and pass the result files inside (gzip and CBT tarballs are read directly)",
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text, note = _latin1_fallback(raw, path)
        notes.append(note)
    return Decoded(_newlines(text), notes)


def _latin1_fallback(raw: bytes, path: Path) -> tuple[str, str]:
    """Stray non-UTF-8 bytes (a Latin-1 'µ' from an old terminal): read them as Latin-1 and say where.
    A file with many of them is not text we understand."""
    bad: list[tuple[int, int]] = []
    pos = 0
    while pos < len(raw) and len(bad) <= 8:
        try:
            raw[pos:].decode("utf-8")
            break
        except UnicodeDecodeError as e:
            at = pos + e.start
            bad.append((at, raw[at]))
            pos = at + 1
    if len(bad) > 8:
        at = bad[0][0]
        raise FlashtuneError(
            f"not UTF-8 text (byte 0x{bad[0][1]:02x} and many more)",
            file=str(path),
            line=raw[:at].count(b"\n") + 1,
            suggestion="convert it to UTF-8 (iconv -f ENCODING -t UTF-8)",
        )
    # decode valid UTF-8 runs as UTF-8 and each stray byte as Latin-1
    parts: list[str] = []
    last = 0
    for at, _byte in bad:
        parts.append(raw[last:at].decode("utf-8"))
        parts.append(raw[at : at + 1].decode("latin-1"))
        last = at + 1
    parts.append(raw[last:].decode("utf-8"))
    nl = b"\n"
    where = ", ".join(f"line {raw[:at].count(nl) + 1} byte 0x{b:02x}" for at, b in bad)
    return "".join(parts), f"not pure UTF-8: read {where} as Latin-1"


def _newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def strip_line_prefixes(text: str) -> tuple[str, str | None]:
    """Remove a launcher's per-line prefix when every non-blank line has one of the same kind."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) < 3:
        return text, None
    for pat in _PREFIXES:
        if all(pat.match(ln) for ln in lines):
            if pat is _PREFIXES[2]:
                # a "host: " prefix must be the same word on most lines, or these are `key: value` lines
                heads = {ln.split(":", 1)[0] for ln in lines}
                if len(heads) > max(2, len(lines) // 50):
                    continue
            out = "\n".join(pat.sub("", ln, count=1) for ln in text.splitlines())
            return out + (
                "\n" if text.endswith("\n") else ""
            ), f"removed per-line prefixes like {lines[0][: pat.match(lines[0]).end()].strip()!r}"  # type: ignore[union-attr]
    return text, None


def open_maybe_gzip(path: Path) -> bool:
    """True when the file is gzip-compressed (by content, not by name)."""
    with path.open("rb") as f:
        return f.read(2) == GZIP_MAGIC


def gunzip_to(path: Path, dest: Path, limit: int) -> None:
    """Stream-decompress a gzip file to dest (bounded), for readers that need a seekable plain file."""
    done = 0
    try:
        with gzip.open(path, "rb") as src, dest.open("wb") as out:
            while chunk := src.read(1 << 20):
                done += len(chunk)
                if done > limit:
                    raise FlashtuneError(
                        f"gzip file expands to more than {limit} bytes",
                        file=str(path),
                        suggestion="check it is a fio log",
                    )
                out.write(chunk)
    except (OSError, EOFError, zlib.error) as e:
        raise FlashtuneError(
            f"gzip data is corrupt or cut off: {e}",
            file=str(path),
            suggestion="re-copy the file; `gzip -t FILE` checks it",
        ) from None


def head_text(path: Path, nbytes: int) -> str:
    """The first part of a file as text, for recognising its tool (gzip/UTF-16/BOM handled, damage
    tolerated: the full read reports problems precisely)."""
    with path.open("rb") as f:
        raw = f.read(nbytes)
    if raw.startswith(GZIP_MAGIC):
        try:
            raw = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw, nbytes)
        except zlib.error:
            return ""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16", "replace")
    if len(raw) >= 4 and raw[1:4:2] == b"\x00\x00" and raw[0:3:2] != b"\x00\x00":
        return raw.decode("utf-16-le", "replace")
    text = raw.decode("utf-8", "replace").lstrip("\ufeff")
    return strip_line_prefixes(text)[0]
