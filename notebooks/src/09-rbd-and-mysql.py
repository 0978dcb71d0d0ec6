# %% [markdown]
# # 09 · RBD and MySQL on Ceph: the All-NVMe MySQL set-up, its my.cnf, and what it trades away
#
# **Question.** The guide closes with a complete All-NVMe Ceph set-up for MySQL: a ceph.conf, a CBT
# test plan and a my.cnf. If I copy it for a database on RBD, what exactly would it test, which of
# its MySQL settings buy speed with durability, and what still works on MariaDB 10.11 or MySQL 8?
#
# **Data.** The three files as printed (seed 000, extracted to `tests/fixtures/seed-configs/`), the
# CBT plan's parameters from the data package, the knob catalog's MySQL facts (safety class,
# flavours that still have each option), and flashtune's linter. The guide publishes no MySQL
# results, so the chart of results is yours: pass a sysbench output file.

# %% tags=["parameters"]
# Path to your own sysbench output (text, or the JSON-lines Lua report); None shows the published material only.
results = None

# %%
import re

import altair as alt
import pandas as pd

from flashtune import nb
from flashtune.tables import load
from flashtune.releases import MYSQL_FLAVOURS

nb.setup()
reader = nb.reader_results(results)
plan = load("setup_parameters")
plan = plan[plan.setup == "guide-mysql-cbt"].set_index("parameter")
plan[["value_text", "value_number", "unit"]]

# %% [markdown]
# ## Checks: what the CBT plan would run


# %%
def numbers(text: str) -> list[int]:
    return [int(x) for x in re.findall(r"\d+", text.split(":", 1)[1])]


iodepths, mixes = numbers(plan.loc["iodepth", "value_text"]), numbers(plan.loc["rwmixread", "value_text"])
runs = len(iodepths) * len(mixes)
seconds = runs * (plan.loc["time", "value_number"] + plan.loc["ramp", "value_number"])
volumes = plan.loc["clients", "value_number"] * plan.loc["volumes_per_client", "value_number"]
working_set_MiB = volumes * plan.loc["vol_size", "value_number"]  # CBT's vol_size is in MiB
nb.check("fio runs per iteration (iodepths x read mixes)", runs, 18)
nb.check("hours per iteration (300 s ramp + 300 s run each)", seconds / 3600, 3)
nb.check("RBD volumes (6 clients x 10)", volumes, 60)
nb.check("total working set (MiB)", working_set_MiB, 600)
cbt_lint = nb.lint_findings("000-cbt.yaml")
cbt_lint[["line", "severity", "code", "key", "message"]]

# %%
assert "iterations" in set(cbt_lint.key), "the plan's 'iterations: 1' sits where CBT never reads it"

# %% [markdown]
# Two things make this plan a trap when copied. Its 60 volumes of 10 MiB (CBT reads `vol_size` in
# MiB) total 600 MiB, which fits in the OSDs' caches, so "4K random" runs measure memory, not NVMe.
# And `iterations: 1` is indented at the top level, where CBT ignores it; CBT's default is 0
# iterations, so the plan runs nothing and exits successfully.
#
# ## The my.cnf, setting by setting

# %%
mycnf = nb.seed_settings("000-my.cnf")
mycnf = mycnf[mycnf.section == "mysqld"].drop_duplicates("key", keep="last")
# Catalog status per flavour (the linter's FT101-103 come from the same function) and value safety.
grid = nb.status_grid(mycnf[["key", "value"]], "mysql", MYSQL_FLAVOURS).rename(columns={"release": "flavour"})
grid["state"] = grid.state.map({"in effect": "exists", "not catalogued": "unknown"}).fillna("gone")
grid.loc[(grid.state == "exists") & (grid.safety != "safe"), "state"] = "exists, value risks data"
grid.pivot_table(index="state", columns="flavour", values="key", aggfunc="count", fill_value=0)

# %%
at = grid.set_index(["key", "flavour"]).state
assert at[("innodb_flush_log_at_trx_commit", "mariadb-10.11")] == "exists, value risks data"
assert at[("innodb_checksums", "mysql-8.0")] == "gone", "removed in MySQL 8.0"
assert at[("query_cache_size", "mysql-8.0")] == "gone", "the query cache was removed in MySQL 8.0"
mycnf_lint = nb.lint_findings("000-my.cnf")
mycnf_lint[["line", "severity", "code", "key", "message"]]

# %% [markdown]
# ## Chart: the guide's my.cnf across MySQL flavours

# %%
states = ["exists", "exists, value risks data", "gone", "unknown"]
chart = (
    alt.Chart(grid)
    .mark_rect(stroke="white")
    .encode(
        x=alt.X(
            "flavour:N", sort=list(MYSQL_FLAVOURS), title=None, axis=alt.Axis(orient="top", labelAngle=0)
        ),
        y=alt.Y("key:N", sort=list(mycnf.key), title=None),
        color=alt.Color(
            "state:N",
            sort=states,
            title="option",
            legend=alt.Legend(labelLimit=250),
            scale=alt.Scale(domain=states, range=["#54a24b", "#eeca3b", "#b279a2", "#bab0ac"]),
        ),
        tooltip=["key", "value", "flavour", "state"],
    )
    .properties(
        width=320,
        height=alt.Step(14),
        title=alt.Title(
            "The guide's [mysqld] settings on today's MySQL and MariaDB",
            subtitle="Seed 000 'MySQL configuration file (my.cnf)'; facts from flashtune's knob catalog",
        ),
    )
)
chart

# %% [markdown]
# ## Reading it
#
# The my.cnf is a MySQL 5.7 file tuned for a benchmark. Three of its choices trade durability for
# speed: `innodb_flush_log_at_trx_commit = 0` writes the redo log about once a second, so a crash or
# power loss can drop the last second of committed transactions; `innodb_checksums = 0` stops InnoDB
# from detecting corrupted pages (MySQL 8.0 and MariaDB 10.11 no longer have the option — MariaDB
# 10.11 refuses to start with `unknown variable 'innodb_checksums=0'` — and checksums are governed by
# `innodb_checksum_algorithm`); and on the Ceph side the ceph.conf disables the RBD cache and cephx
# authentication. With `innodb_flush_method = O_DIRECT` the buffer pool is the only cache, which is
# right on RBD, where the guest page cache would double-buffer.
#
# For a real database on RBD, keep `innodb_flush_log_at_trx_commit = 1` (and `sync_binlog = 1` with
# replication): RBD on all-flash has the low write latency that makes per-commit flushes affordable,
# and that is exactly what the benchmark should measure. The query cache settings, `innodb_checksums`
# and `expire_logs_days` stop a MySQL 8 server from starting or are deprecated, and
# `innodb_page_cleaners` is gone from MariaDB 10.11, so the file needs porting per flavour — `compile-config --workload mysql` emits a checked one.
#
# ## Knobs this justifies

# %%
nb.knob_table(
    [
        ("mysql", k)
        for k in [
            "innodb_flush_log_at_trx_commit",
            "sync_binlog",
            "innodb_checksums",
            "innodb_flush_method",
            "innodb_buffer_pool_size",
            "innodb_log_file_size",
            "query_cache_size",
        ]
    ]
    + ["rbd_cache", "auth_client_required"]
)

# %% [markdown]
# ## Your results
#
# Pass sysbench output (`sysbench oltp_read_write ... run`, plain text, with `--report-interval` for
# a time series): the chart shows transactions per second and the 95th-percentile latency.

# %%
tps = nb.reader_metric(reader, "tps", tool="sysbench")
if tps is not None:
    lat = nb.reader_metric(reader, "latency", stat="p95", tool="sysbench")
    summary = tps[["test", "threads", "value"]].rename(columns={"value": "tps"})
    if lat is not None:
        summary = summary.merge(
            lat[["test", "value"]].rename(columns={"value": "p95_ms"}), on="test", how="left"
        )
    display(summary)
    series = reader[(reader.metric == "tps") & reader.time_s.notna()]
    if len(series):
        display(
            nb.reader_chart(
                series,
                x=alt.X("time_s:Q", title="time (s)"),
                y=alt.Y("value:Q", title="transactions per second"),
                tooltip=["time_s", "value"],
                title="Your sysbench run over time",
            )
        )
    display(
        nb.reader_chart(
            summary,
            x=alt.X("threads:O", title="sysbench threads"),
            y=alt.Y("tps:Q", title="transactions per second"),
            tooltip=[c for c in ["test", "threads", "tps", "p95_ms"] if c in summary.columns],
            title="Your sysbench run: throughput",
        )
    )
