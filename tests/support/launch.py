"""Run a command under limits and report its own peak RSS: `python -S launch.py SPEC_JSON REPORT_FD CMD...`.

Why a launcher: Linux records a process's peak RSS across exec (exec_mmap keeps the old mm's high-water mark in
signal->maxrss), and a child forked from a pytest worker starts with a copy of the worker's pages. So wait4's
ru_maxrss for a child of the test process is at least the worker's own size (hundreds of MiB late in a run).
This launcher is small; the command is forked from it, so the peak reported is the command's own (>= ~10 MiB).
The command's exit status is passed on (a signal death as the same signal); SIGTERM/SIGINT/SIGHUP are forwarded.
"""

import json
import os
import resource
import signal
import sys


def main() -> None:
    spec, report_fd, cmd = json.loads(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    pid = os.fork()
    if pid == 0:
        os.close(report_fd)
        for name, value in spec.get("rlimits", {}).items():
            resource.setrlimit(getattr(resource, name), (value, value))
        if spec.get("ignore_sigxfsz"):
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead
        if spec.get("umask") is not None:
            os.umask(spec["umask"])
        if spec.get("close_stdout"):
            os.close(1)  # started with standard output closed (`cmd >&-`)
        os.execv(cmd[0], cmd)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda s, _f: os.kill(pid, s))
    while True:
        try:
            _, status, usage = os.wait4(pid, 0)
            break
        except InterruptedError:
            continue
    os.write(report_fd, str(usage.ru_maxrss).encode())
    os.close(report_fd)
    if os.WIFSIGNALED(status):
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    sys.exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    main()
