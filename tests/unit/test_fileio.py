"""fileio.write_atomic's durability: what it forces to disk, and when."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from flashtune.fileio import write_atomic


def test_sync_puts_the_data_and_the_new_name_on_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """sync=True (prove's saved dump, the file its restore needs after a crash): the file's data, then the
    folder that holds the renamed name; without it a new file is not forced out, a replaced one only its data."""
    synced: list[tuple[bool, int]] = []
    fsync = os.fsync

    def recorded(fd: int) -> None:
        st = os.fstat(fd)
        synced.append((stat.S_ISDIR(st.st_mode), st.st_ino))
        fsync(fd)

    monkeypatch.setattr(os, "fsync", recorded)
    dump = tmp_path / "config-before.json"
    write_atomic(dump, "[]\n", sync=True)
    assert synced == [(False, dump.stat().st_ino), (True, tmp_path.stat().st_ino)]
    assert dump.read_text() == "[]\n"
    synced.clear()
    plain = tmp_path / "report.md"
    write_atomic(plain, "one\n")
    assert synced == []
    write_atomic(plain, "two\n", force=True)  # the old file is replaced only once the new data is on disk
    assert synced == [(False, plain.stat().st_ino)]


@pytest.mark.parametrize(
    ("encoding", "says"),
    [("utf-16", "UTF-16"), ("utf-16-le", "UTF-16"), ("utf-16-be", "UTF-16"), ("utf-32", "UTF-32")],
)
def test_a_file_saved_as_utf16_or_utf32_is_named_as_such(tmp_path: Path, encoding: str, says: str) -> None:
    """Notepad's 'Unicode' (UTF-16) hardware file read 'file contains NUL bytes: it looks binary'."""
    from flashtune.errors import FlashtuneError
    from flashtune.fileio import read_text

    f = tmp_path / "hw.yaml"
    f.write_bytes("name: iops\nnode:\n  cores: 8\n".encode(encoding))
    with pytest.raises(FlashtuneError) as e:
        read_text(f)
    assert str(e.value).startswith(f"{f}:1: error: the file is {says} text, not UTF-8"), str(e.value)
    f.write_bytes(b"node:\x00\x01\x02")  # binary stays binary
    with pytest.raises(FlashtuneError, match="NUL bytes"):
        read_text(f)
