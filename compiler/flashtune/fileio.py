"""Safe file handling: bounded, decoded reads with clear errors; atomic writes that never clobber."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from flashtune.errors import FlashtuneError

MAX_INPUT_BYTES = 64 * 1024 * 1024  # a config bigger than this is not a config


def read_text(path: str | Path, *, max_bytes: int = MAX_INPUT_BYTES) -> str:
    """Read a user's text file as UTF-8, turning every failure into a FlashtuneError."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if p.is_dir():
            raise FlashtuneError("is a directory, not a file", file=str(p), suggestion="pass a file path")
        if size > max_bytes:
            raise FlashtuneError(
                f"file is {size} bytes, more than the {max_bytes} bytes flashtune reads",
                file=str(p),
                suggestion="split the file or check that it is really a config file",
            )
        raw = p.read_bytes()
    except FileNotFoundError:
        raise FlashtuneError("no such file", file=str(p), suggestion="check the path") from None
    except PermissionError:
        raise FlashtuneError(
            "permission denied", file=str(p), suggestion="check the file's permissions"
        ) from None
    except IsADirectoryError:
        raise FlashtuneError(
            "is a directory, not a file", file=str(p), suggestion="pass a file path"
        ) from None
    except OSError as e:
        raise FlashtuneError(f"cannot read: {e.strerror}", file=str(p)) from None
    if b"\x00" in raw:
        raise FlashtuneError(
            "file contains NUL bytes: it looks binary, not a text config",
            file=str(p),
            suggestion="pass the text config file itself",
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        col = e.start - (raw.rfind(b"\n", 0, e.start) + 1) + 1
        raise FlashtuneError(
            f"not valid UTF-8 (byte 0x{raw[e.start]:02x})",
            file=str(p),
            line=line,
            column=col,
            suggestion="save the file as UTF-8",
        ) from None


def write_atomic(path: Path, text: str, *, force: bool = False) -> None:
    """Write text to path via a temp file + rename, refusing to replace an existing file unless force."""
    if path.exists() and not force:
        raise FlashtuneError(
            "exists already; refusing to overwrite it",
            file=str(path),
            suggestion="choose another --out folder or pass --force",
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
