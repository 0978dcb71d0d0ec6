"""The my.cnf parser against MariaDB 10.11's own reader (`my_print_defaults`): the same groups and values,
and the same files refused."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from flashtune.parse import ConfSyntaxError, parse_text
from flashtune.parse.confdoc import ConfDoc
from support.conf_samples import MYCNF_CORPUS, MYCNF_SEED


@pytest.mark.mariadb
@pytest.mark.parametrize(
    ("name", "text"),
    [*MYCNF_CORPUS, ("seed", MYCNF_SEED.read_text().replace("!includedir", "#"))],
    ids=[c[0] for c in MYCNF_CORPUS] + ["seed"],
)
def test_agrees_with_real_my_print_defaults(name: str, text: str, tmp_path: Path) -> None:
    path = tmp_path / "t.cnf"
    path.write_text(text)
    doc = parse_text(text, "my.cnf")
    for group in ("mysqld", "client", "mysqld_safe", "mysqldump"):
        r = subprocess.run(
            ["my_print_defaults", f"--defaults-file={path}", group],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        assert r.stdout == "".join(line + "\n" for line in _ours(doc, group)), group


@pytest.mark.mariadb
@pytest.mark.parametrize("text", ["a=1\n", "[mysqld\na=1\n"], ids=["no-group", "bad-heading"])
def test_fatal_files_are_fatal_for_both(text: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.cnf"
    path.write_text(text)
    r = subprocess.run(
        ["my_print_defaults", f"--defaults-file={path}", "mysqld"], capture_output=True, text=True, timeout=30
    )
    assert r.returncode != 0
    with pytest.raises(ConfSyntaxError) as info:
        parse_text(text, "my.cnf", "bad.cnf")
    assert info.value.line == 1


def _ours(doc: ConfDoc, group: str) -> list[str]:
    return [
        f"--{e.raw_key}" if e.value is None else f"--{e.raw_key}={e.value}"
        for e in doc.entries
        if e.section == group
    ]
