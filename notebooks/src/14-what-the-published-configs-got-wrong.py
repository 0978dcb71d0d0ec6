# %% [markdown]
# # 14 · What the published configs got wrong: the linter on the seeds' own files
#
# **Question.** The 2017 guide prints six configuration files that people still copy: two
# ceph.conf files, two sysctl lists, a my.cnf and a CBT test plan. Run through a linter that knows
# every option's release history, safety class and each tool's parsing rules, what is wrong with
# them — on the release they were written for, and on today's?
#
# **Data.** The six files as printed in seed 000 (extracted to `tests/fixtures/seed-configs/`) and
# flashtune's `lint-config`, run here through its Python API (`flashtune.lint.lint_file`). Each
# finding has a stable code, a file:line and a suggested fix.

# %% tags=["parameters"]
# Path to your own benchmark output; this topic lints configs, not results. None = published material only.
results = None

# %%
import altair as alt
import pandas as pd

from flashtune import nb
from flashtune.tables import load

nb.setup()
reader = nb.reader_results(results)
files = {
    "000-sample-ceph.conf": "sample ceph.conf",
    "000-mysql-ceph.conf": "All-NVMe MySQL ceph.conf",
    "000-kernel-sysctl.conf": "kernel tuning sysctl list",
    "000-sample-sysctl.conf": "sample sysctl.conf",
    "000-my.cnf": "my.cnf",
    "000-cbt.yaml": "CBT YAML",
}
runs = []
for release in ("jewel", "tentacle"):
    for f, label in files.items():
        runs.append(nb.lint_findings(f, ceph_release=release).assign(config=label, release=release))
found = pd.concat(runs, ignore_index=True)
sources = load("sources").set_index("id")
print(
    "as printed in:",
    "; ".join(
        sources.loc[
            [
                "guide-sample-ceph-conf",
                "guide-mysql-ceph-conf",
                "guide-kernel",
                "guide-sample-sysctl",
                "guide-mycnf",
                "guide-cbt-yaml",
            ],
            "locator",
        ]
    ),
)
found.groupby(["release", "config", "severity"]).size().unstack(fill_value=0)

# %% [markdown]
# ## Checks: defects a reader of the guide would hit
#
# Each assertion names a defect the text of this notebook relies on; if the linter stopped finding
# it, the notebook fails.

# %%
now = found[found.release == "tentacle"]


def has(config: str, key: str, code: str) -> bool:
    return bool(((now.config == config) & (now.key == key) & (now.code == code)).any())


expected = [
    (
        "All-NVMe MySQL ceph.conf",
        "auth_client_required",
        "FT502",
    ),  # cephx off: anyone on the network is a client
    ("sample ceph.conf", "auth_cluster_required", "FT502"),
    ("kernel tuning sysctl list", "net.ipv4.tcp_tw_recycle", "FT102"),  # gone since Linux 4.12
    ("kernel tuning sysctl list", "net.ipv4.tcp_syncookies", "FT502"),  # SYN-flood defence off
    ("sample sysctl.conf", "net.ipv4.ip_local_port_range", "FT605"),  # ephemeral ports over Ceph's ports
    ("my.cnf", "innodb_checksums", "FT102"),  # unknown to MariaDB 10.11 / MySQL 8
]
for config in ("sample ceph.conf", "All-NVMe MySQL ceph.conf"):
    auth = now[
        (now.config == config)
        & now.key.str.match(r"auth_(cluster|service|client)_required")
        & (now.code == "FT502")
    ]
    nb.check(f"cephx requirements switched off in the {config}", auth.key.nunique(), 3)
missing = [e for e in expected if not has(*e)]
assert not missing, missing
typos = now[now.key.isin(["objecter_infilght_op_bytes", "journal_queueu_max_ops"])]
assert len(typos) >= 2, "both misspelt throttles are reported"
cbt = now[now.config == "CBT YAML"]
assert (cbt.code == "FT703").any(), "keys at the wrong level: CBT silently ignores them"
jewel_n, now_n = (found.release == "jewel").sum(), len(now)
print(f"{jewel_n} findings against Jewel (the release the guide targeted), {now_n} against Tentacle")
assert now_n > jewel_n, "time made the files worse"

# %% [markdown]
# ## Chart: findings per file, by kind, on the guide's release and today's

# %%
found["kind"] = found.code.str[:4].map(
    {
        "FT00": "syntax",
        "FT10": "key unknown/removed/renamed",
        "FT20": "bad value",
        "FT30": "duplicate",
        "FT40": "no-op in context",
        "FT50": "unsafe or insecure",
        "FT60": "cross-key rule",
        "FT70": "CBT plan structure",
    }
)
chart = (
    alt.Chart(found)
    .mark_bar()
    .encode(
        y=alt.Y("config:N", sort=list(files.values()), title=None),
        x=alt.X("count():Q", title="findings"),
        color=alt.Color("kind:N", title="kind of defect"),
        row=alt.Row("release:N", sort=["jewel", "tentacle"], title="linted for Ceph release"),
        tooltip=["config", "release", "code", "name", "key", "message"],
    )
    .properties(
        height=alt.Step(18),
        title=alt.Title(
            "The guide's six config files through flashtune's linter",
            subtitle="Seed 000 as printed; ceph.conf checked against Jewel (2017) and Tentacle",
        ),
    )
)
chart

# %% [markdown]
# ## Reading it
#
# Even for the release they were written for, the files carry real mistakes: cephx authentication
# switched off in both ceph.conf files (all three `auth_*_required` keys set to `none`), two misspelt throttles (`objecter_infilght_op_bytes`,
# `journal_queueu_max_ops`) that Ceph silently ignores, so the tuning they were meant to apply never
# happened, and a CBT plan whose `iterations`, `osds_per_node` and other keys sit at a level CBT does
# not read, so it runs nothing. The sysctl files switch off SYN cookies and let the ephemeral port
# range cover Ceph's own ports.
#
# Against a current release the count grows, because time removed options: FileStore and journal
# keys do nothing on BlueStore, `osd_op_threads` and friends were removed, `tcp_tw_recycle` left the
# kernel, and MySQL 8 / MariaDB 10.11 reject `innodb_checksums` and the query cache settings. None of
# this produces an error from Ceph itself — it accepts unknown keys silently — which is why a linter
# with the release history is worth running before any copied config is deployed.
#
# ## All findings against Tentacle

# %%
now[["config", "line", "severity", "code", "name", "key", "message", "suggestion"]].reset_index(drop=True)

# %% [markdown]
# ## Knobs this justifies

# %%
nb.knob_table(
    [
        "auth_cluster_required",
        "auth_client_required",
        "objecter_infilght_op_bytes",
        "journal_queueu_max_ops",
        ("sysctl", "net.ipv4.ip_local_port_range"),
        ("mysql", "innodb_checksums"),
    ]
)

# %% [markdown]
# ## Your results
#
# To lint your own files run `lint-config --ceph-release <release> FILE...` (`--format json` for
# tools). A benchmark results file passed here is only listed.

# %%
if reader is not None:
    print(reader.groupby(["tool", "metric"]).size())
