"""Safe file handling: bounded, decoded reads with clear errors; writes that are atomic and never clobber.

Reading: only regular files (a FIFO would block forever, /dev/zero never ends), at most MAX_INPUT_BYTES.
Writing one file: a temp file beside the target, renamed over it. Writing an output folder: the whole folder
is built beside the target and swapped in with one rename, so a failure leaves the earlier folder as it was
and `--force` leaves no stale file of an earlier run. New files get the usual 0666 & ~umask, like any tool.
Every function takes a str or a Path and names files in messages as str(Path(name)) writes them.
"""

from __future__ import annotations

import codecs
import contextlib
import ctypes
import errno
import os
import shutil
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path

from flashtune import userjson
from flashtune.errors import FlashtuneError, UsageError

MAX_INPUT_BYTES = 64 * 1024 * 1024  # a config bigger than this is not a config

_KIND = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a directory",
}


def _os_error(e: OSError, path: str | Path, doing: str) -> FlashtuneError:
    """One-line message for an OSError, with a hint where there is an obvious one."""
    hints = {
        errno.ENOENT: "check the path",
        errno.EACCES: "check the permissions (or choose another place)",
        errno.EPERM: "check the permissions (or choose another place)",
        errno.ELOOP: "the path is a symbolic link that points (directly or not) at itself; fix the link",
        errno.ENOSPC: "free some space on that file system",
        errno.EDQUOT: "free some space (disk quota exceeded)",
        errno.EROFS: "the file system is read-only; choose another place",
        errno.EFBIG: "the file grew past the size limit of this process or file system",
        errno.ENAMETOOLONG: "use a shorter path",
        errno.ENOTDIR: "a part of the path is a file, not a folder",
        errno.EISDIR: "pass a file, not a folder",
    }
    reason = e.strerror or str(e)
    return FlashtuneError(
        f"cannot {doing}: {reason.lower()}", file=str(path), suggestion=hints.get(e.errno or 0)
    )


def file_kind(mode: int) -> str:
    return _KIND.get(stat.S_IFMT(mode), "not a regular file")


def check_input(path: str | Path, *, dirs: bool = False) -> os.stat_result:
    """stat() an input path and refuse anything that is not a regular file (or a folder, if `dirs`)."""
    p = Path(path)
    if os.fspath(path) == "":
        raise UsageError("an empty string is not a file name", suggestion="pass the path of a file")
    try:
        st = os.stat(p)
    except OSError as e:
        raise _os_error(e, p, "read") from None
    if stat.S_ISREG(st.st_mode) or (dirs and stat.S_ISDIR(st.st_mode)):
        return st
    kind = file_kind(st.st_mode)
    hint = "pass the file itself" if stat.S_ISDIR(st.st_mode) else "save the data to a regular file first"
    raise FlashtuneError(f"is {kind}, not a regular file", file=str(p), suggestion=hint)


def check_input_tree(path: str | Path, *, max_entries: int = 200_000) -> None:
    """check_input, and for a folder every entry below it: a FIFO or device inside would block a reader."""
    st = check_input(path, dirs=True)
    if not stat.S_ISDIR(st.st_mode):
        return
    seen = 0
    for root, dirs, files in os.walk(path, followlinks=False):
        for entry_name in (*files, *dirs):
            seen += 1
            if seen > max_entries:
                raise FlashtuneError(
                    f"has more than {max_entries} entries",
                    file=str(path),
                    suggestion="pass the result folders themselves",
                )
            entry = Path(root, entry_name)
            try:
                mode = os.stat(entry).st_mode  # follows links: a link to a FIFO is a FIFO
            except OSError as e:
                raise _os_error(e, entry, "read") from None
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                raise FlashtuneError(
                    f"is {file_kind(mode)}, not a regular file",
                    file=str(entry),
                    suggestion="move it out of the folder or pass the files one by one",
                )


def read_bytes(path: str | Path, *, max_bytes: int = MAX_INPUT_BYTES) -> bytes:
    """A regular file's bytes, at most max_bytes (checked again while reading: files can grow)."""
    p = Path(path)
    st = check_input(path)
    too_big = FlashtuneError(
        f"file is more than the {max_bytes} bytes flashtune reads",
        file=str(p),
        suggestion="split the file or check that it is really the file you meant",
    )
    if st.st_size > max_bytes:
        raise too_big
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
        with os.fdopen(fd, "rb") as f:
            raw = f.read(max_bytes + 1)
    except OSError as e:
        raise _os_error(e, p, "read") from None
    if len(raw) > max_bytes:
        raise too_big
    return raw


def read_text(path: str | Path, *, max_bytes: int = MAX_INPUT_BYTES) -> str:
    """Read a user's text file as UTF-8, turning every failure into a FlashtuneError."""
    return _decoded(read_bytes(path, max_bytes=max_bytes), str(Path(path)))


STDIN = "<stdin>"  # how messages name standard input


def read_stdin(*, max_bytes: int = MAX_INPUT_BYTES) -> str:
    """Standard input (`-` on the command line) as read_text reads a file: at most max_bytes, UTF-8, no NUL."""
    try:
        raw = sys.stdin.buffer.read(max_bytes + 1) if sys.stdin is not None else b""
    except OSError as e:
        raise _os_error(e, STDIN, "read") from None
    if len(raw) > max_bytes:
        raise FlashtuneError(
            f"standard input is more than the {max_bytes} bytes flashtune reads",
            file=STDIN,
            suggestion="check that it is really the data you meant",
        )
    return _decoded(raw, STDIN)


def _utf16_or_32(raw: bytes) -> str | None:
    """'UTF-16' or 'UTF-32' where `raw` starts like text in one of them (a byte-order mark, or ASCII with a NUL
    after each character as Windows Notepad's 'Unicode' saves it), else None."""
    for bom, name in (
        (codecs.BOM_UTF32_LE, "UTF-32"),
        (codecs.BOM_UTF32_BE, "UTF-32"),
        (codecs.BOM_UTF16_LE, "UTF-16"),
        (codecs.BOM_UTF16_BE, "UTF-16"),
    ):
        if raw.startswith(bom):
            return name
    head = raw[:4]
    if len(head) == 4 and head[1] == head[3] == 0 and head[0] and head[2]:
        return "UTF-16"
    if len(head) == 4 and head[0] == head[2] == 0 and head[1] and head[3]:
        return "UTF-16"
    return None


def _decoded(raw: bytes, p: str) -> str:
    wide = _utf16_or_32(raw)
    if wide is not None:  # its NUL bytes read 'it looks binary', for a text file saved in another encoding
        raise FlashtuneError(
            f"the file is {wide} text, not UTF-8",
            file=p,
            line=1,
            suggestion="save it as UTF-8 (e.g. iconv -f UTF-16 -t UTF-8, or 'UTF-8' in the editor's Save As)",
        )
    if b"\x00" in raw:
        line = raw[: raw.index(b"\x00")].count(b"\n") + 1
        raise FlashtuneError(
            "file contains NUL bytes: it looks binary, not a text config",
            file=p,
            line=line,
            suggestion="pass the text config file itself",
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        col = e.start - (raw.rfind(b"\n", 0, e.start) + 1) + 1
        raise FlashtuneError(
            f"not valid UTF-8 (byte 0x{raw[e.start]:02x})",
            file=p,
            line=line,
            column=col,
            suggestion="save the file as UTF-8",
        ) from None


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _write_new(path: Path, data: bytes, *, sync: bool) -> None:
    """Create path (which must not exist) with mode 0666 & ~umask and write data."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


def _sync_folder(folder: Path) -> None:
    """fsync a folder: a name just created or renamed in it is then on disk, not only the file's data."""
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _target_state(path: Path) -> os.stat_result | None:
    """lstat of an output target, refusing symlinks (a loop, or a link elsewhere) outright."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise _os_error(e, path, "write") from None
    if stat.S_ISLNK(st.st_mode):
        try:
            os.stat(path)
        except OSError as e:
            raise _os_error(e, path, "write") from None
        raise FlashtuneError(
            "is a symbolic link; flashtune does not write through links",
            file=str(path),
            suggestion="pass the real path the link points at",
        )
    return st


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def refuse_replacing_inputs(target: str | Path, inputs: Iterable[str | Path]) -> None:
    """Refuse (exit 2, naming both paths) when writing `target` would replace one of the run's inputs.

    `target` is what a write replaces as a whole: an output file, or an output folder with everything in it.
    An input clashes when it is the target (by resolved path, or the same file under another name: a hard
    link) or lies inside the target folder. Every writing command passes all its inputs here.
    """
    target = Path(target)
    try:
        tst: os.stat_result | None = os.stat(target)
    except OSError:
        tst = None
    if tst is None:
        return  # nothing there: nothing of the user's can be replaced
    real = os.path.realpath(target)
    for given in inputs:
        given_s = Path(given)
        try:
            ist = os.stat(given_s)
        except OSError:
            continue  # a missing input is reported by its reader
        resolved = os.path.realpath(given_s)
        same = (ist.st_dev, ist.st_ino) == (tst.st_dev, tst.st_ino)
        if same or _inside(resolved, real):
            how = "lies inside" if real != resolved and not same else "is the same file as"
            raise UsageError(
                f"writing here would replace an input of this run: {given_s} {how} {target}",
                file=str(target),
                suggestion=f"choose another output than {target}; {given_s} is read by this run",
            )


def check_output_file(
    path: str | Path, *, force: bool = False, inputs: Iterable[str | Path] = ()
) -> os.stat_result | None:
    """Refuse an output file name that is empty, not a regular file, an input of the run, or exists (unless
    force); its lstat."""
    path = Path(path)
    if path == Path():
        raise UsageError("the output file name is empty", suggestion="pass a file name")
    st = _target_state(path)
    refuse_replacing_inputs(path, inputs)
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise FlashtuneError(
            f"is {file_kind(st.st_mode)}; flashtune writes only regular files",
            file=str(path),
            suggestion="choose a file name for the output",
        )
    if st is not None and not force:
        raise FlashtuneError(
            "exists already; refusing to overwrite it",
            file=str(path),
            suggestion="choose another output name or pass --force",
        )
    return st


def _unlink(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


class Terminated(SystemExit):
    """SIGTERM or SIGHUP arrived while an output was being written: raised there, so the write's clean-up runs
    and the process then ends with 128 + the signal's number, as a shell reports a signalled command."""


class _SignalsEndCleanly:
    """While an output is written, SIGTERM and SIGHUP raise Terminated (their default action would end the
    process at once and leave the hidden temporary folder behind). Only the main thread can set handlers;
    a handler of the caller's own stays."""

    def __enter__(self) -> None:
        self.before: dict[int, object] = {}
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in (signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(sig) in (signal.SIG_DFL, None):
                self.before[sig] = signal.signal(sig, _terminate)

    def __exit__(self, *exc: object) -> None:
        for sig, previous in self.before.items():
            signal.signal(sig, previous)  # type: ignore[arg-type]


def _terminate(signum: int, _frame: object) -> None:
    raise Terminated(128 + signum)


class _SignalsHeld:
    """Hold SIGTERM, SIGHUP and SIGINT back for a few renames; they are delivered (and handled) after."""

    def __enter__(self) -> None:
        self.before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGHUP, signal.SIGINT})

    def __exit__(self, *exc: object) -> None:
        signal.pthread_sigmask(signal.SIG_SETMASK, self.before)


def _cleanup(path: Path, *, folder: bool) -> None:
    """Remove a temporary file or folder after a failed write; if even that fails (a file system gone
    read-only), say where it is instead of raising inside the error handler."""
    try:
        if folder:
            shutil.rmtree(path)
        else:
            _unlink(path)
    except OSError as e:
        if os.path.lexists(path):
            print(
                f"{path}: warning: could not remove this temporary {'folder' if folder else 'file'} "
                f"({(e.strerror or str(e)).lower()}); remove it by hand",
                file=sys.stderr,
            )


def write_atomic(
    path: str | Path,
    text: str,
    *,
    force: bool = False,
    inputs: Iterable[str | Path] = (),
    sync: bool = False,
) -> None:
    """Write text to a regular file via a temp file + rename, refusing to replace it unless force, and
    refusing to replace any of `inputs` even with force. The data reaches the disk before the rename where
    it replaces a file, and always with `sync` (a file that must survive a crash: prove's saved dump), which
    also puts the rename itself on disk (the folder is synced after it)."""
    path = Path(path)
    st = check_output_file(path, force=force, inputs=inputs)
    folder = path.parent
    tmp = folder / f".{path.name}.{os.getpid()}.tmp"
    with _SignalsEndCleanly():
        try:
            os.makedirs(folder, exist_ok=True)
            _write_new(tmp, text.encode("utf-8"), sync=sync or st is not None)
            os.replace(tmp, path)
            if sync:
                _sync_folder(folder)
        except OSError as e:
            _cleanup(tmp, folder=False)
            raise _os_error(e, path, "write") from None
        except BaseException:
            _cleanup(tmp, folder=False)
            raise


MARKER = ".flashtune-output"  # in every output folder: what --force may replace as a whole


def is_flashtune_folder(folder: str | Path) -> bool:
    """Whether a folder holds an earlier compile-config output (its marker, or a manifest.json naming flashtune)."""
    if Path(folder, MARKER).is_file():
        return True
    path = Path(folder, "manifest.json")
    try:
        manifest = userjson.loads(read_text(path), file=str(path))
    except FlashtuneError:
        return False
    by = manifest.get("generated_by") if isinstance(manifest, dict) else None
    return isinstance(by, dict) and str(by.get("tool", "")).startswith("flashtune")


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux renameat2 RENAME_EXCHANGE); False where the system cannot."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    if fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _new_dir(folder: Path, out: Path, suffix: str) -> Path:
    """A new private (0700) hidden folder beside the output folder `out`."""
    return Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=suffix, dir=folder))


def write_folder(
    out: str | Path, files: Mapping[str, str], *, force: bool = False, inputs: Iterable[str | Path] = ()
) -> list[Path]:
    """Write `files` (relative name -> text) as the folder `out`, all at once.

    The folder is built in a hidden temp folder beside `out` and renamed into place. An existing `out` is
    refused unless it is empty, or `force` is given and it is an earlier flashtune output folder; then it is
    swapped out in one step and removed. On any failure the temp folder is removed and `out` is untouched.
    A folder holding one of `inputs` (or being one) is never replaced, even with force.
    """
    out = Path(out)
    if out == Path():
        raise UsageError("the output folder name is empty", suggestion="pass --out FOLDER (a new folder)")
    st = _target_state(out)
    refuse_replacing_inputs(out, inputs)
    replace = False
    if st is not None:
        if not stat.S_ISDIR(st.st_mode):
            raise FlashtuneError(
                f"is {file_kind(st.st_mode) if not stat.S_ISREG(st.st_mode) else 'a file'}, not a folder",
                file=str(out),
                suggestion="pass --out a folder name",
            )
        try:
            empty = not os.listdir(out)
        except OSError as e:
            raise _os_error(e, out, "read the folder") from None
        if not empty:
            if not is_flashtune_folder(out):
                raise FlashtuneError(
                    "exists and is not a flashtune output folder (no manifest.json from "
                    "compile-config); refusing to replace it",
                    file=str(out),
                    suggestion="choose a new --out folder",
                )
            if not force:
                clash = next((out / n for n in files if (out / n).exists()), out)
                raise FlashtuneError(
                    "exists already; refusing to overwrite it",
                    file=str(clash),
                    suggestion="choose another --out folder or pass --force",
                )
        replace = True
    base = out.parent
    with _SignalsEndCleanly():
        try:
            base.mkdir(parents=True, exist_ok=True)
            tmp = _new_dir(base, out, ".tmp")
        except OSError as e:
            raise _os_error(e, out, "create the output folder") from None
        leftover: Path | None = tmp  # what is removed whatever happens: the new folder until it is in place
        try:
            written = _fill(tmp, out, files, sync=replace)
            with _SignalsHeld():  # the swap is never cut in half: a signal waits until it is done
                if not replace:
                    os.rename(tmp, out)
                    leftover = None
                elif not _exchange(tmp, out):  # (on success tmp holds the earlier folder)
                    old = _new_dir(base, out, ".old")
                    os.replace(out, old)
                    try:
                        os.rename(tmp, out)
                    except OSError:
                        os.replace(old, out)
                        raise
                    leftover = old
        except OSError as e:
            if leftover is not None:
                _cleanup(leftover, folder=True)
            raise _os_error(e, out, "write the output folder") from None
        except BaseException:
            if leftover is not None:
                _cleanup(leftover, folder=True)
            raise
        if leftover is not None:
            _cleanup(leftover, folder=True)  # the earlier output, swapped out
        return written


def _fill(tmp: Path, out: Path, files: Mapping[str, str], *, sync: bool) -> list[Path]:
    """Write the files into the new (hidden) folder; the names they will have once it is `out`."""
    _write_new(tmp / MARKER, b"compile-config output: --force replaces this whole folder\n", sync=False)
    written = []
    for rel, text in files.items():
        if rel.startswith("/") or ".." in rel.split("/"):  # (names come from the compiler, never the user)
            raise ValueError(f"output file name {rel!r} would leave the output folder")
        dest = tmp / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        _write_new(dest, text.encode("utf-8"), sync=sync)  # replacing: the new data is on disk first
        written.append(out / rel)
    mode = 0o777 & ~_umask()
    for root, _, _ in os.walk(tmp):
        os.chmod(root, mode)  # _new_dir makes 0700; the output folder is an ordinary folder
    return written
