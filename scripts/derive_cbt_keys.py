"""List the config keys each CBT benchmark module reads, from a checkout of github.com/ceph/cbt, and compare them
with data/cbt/schema.yaml (run by hand when CBT changes; the schema cites the commit it was checked at).

    python scripts/derive_cbt_keys.py CBT_CHECKOUT
Prints, per module, keys CBT reads that the schema lacks and schema keys the module never reads.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "compiler"))
from flashtune.yamlio import load_yaml

_READ = re.compile(r"""config(?:\.get|\.pop)?[(\[]\s*['"]([A-Za-z0-9_-]+)['"]""")


def keys_read(path: Path) -> set[str]:
    return set(_READ.findall(path.read_text(encoding="utf-8")))


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__)
        return 2
    cbt = Path(argv[0])
    schema = load_yaml(Path(__file__).resolve().parents[1] / "data" / "cbt" / "schema.yaml")
    common = set(schema["benchmark_common"])
    for module, spec in schema["benchmarks"].items():
        src = cbt / "benchmark" / f"{module}.py"
        if not src.is_file():
            print(f"{module}: no {src}")
            continue
        read = keys_read(src) - common
        known = set(spec or {})
        print(
            f"{module}: CBT reads, schema lacks: {sorted(read - known)}; schema has, CBT does not read: "
            f"{sorted(known - read)}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
