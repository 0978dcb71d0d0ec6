# %% [markdown]
# # 07 · OSD throttles and FileStore → BlueStore: which 2017 knobs still do anything?
#
# **Question.** The guide's "OSD: RADOS" section raises a dozen throttles "10x" and tunes FileStore
# queues, journal writes and sync intervals. Its sample ceph.conf files set them all. On the Ceph
# release I run, which of those keys still exist, which are silently ignored because BlueStore
# replaced FileStore, and were the throttles really raised tenfold?
#
# **Data.** The Ceph keys of the guide's two ceph.conf files (sample and All-NVMe MySQL; seed 000,
# extracted to `tests/fixtures/seed-configs/`), the knob catalog's release facts (added, removed,
# renamed, FileStore-only, typos), and the guide's "10x" claims.

# %% tags=["parameters"]
# Path to your own benchmark output; this topic has no benchmark overlay. None = published data only.
results = None

# %%
import altair as alt
import pandas as pd

from flashtune import nb
from flashtune.catalog import load_catalog
from flashtune.catalog.status import STATES
from flashtune.tables import load
from flashtune.releases import SUPPORTED_CEPH_RELEASES

nb.setup()
reader = nb.reader_results(results)
confs = {"sample ceph.conf": "000-sample-ceph.conf", "All-NVMe MySQL ceph.conf": "000-mysql-ceph.conf"}
keys = pd.concat([nb.seed_settings(f).assign(conf=name) for name, f in confs.items()], ignore_index=True)
catalog = load_catalog()
debug = keys.key.str.startswith("debug_")
print(f"{len(keys)} settings, {debug.sum()} of them debug levels (left out below)")
keys = keys[~debug].drop_duplicates(subset=["key"]).reset_index(drop=True)
# What each line does per release, as the catalog (and so the linter and the knob cards) decides it;
# a FileStore knob is "dead" where the release's default object store is BlueStore (Luminous on).
grid = nb.status_grid(keys[["key", "value"]], "ceph", SUPPORTED_CEPH_RELEASES)
summary = grid.pivot_table(index="state", columns="release", values="key", aggfunc="count", fill_value=0)
summary[list(SUPPORTED_CEPH_RELEASES)]

# %% [markdown]
# ## Checks: how many of the keys still take effect

# %%
now = grid[grid.release == "tentacle"].set_index("key").state
jewel = grid[grid.release == "jewel"].set_index("key").state
effective_now = (now == "in effect").sum()
print(
    f"{effective_now} of {len(now)} non-debug keys still take effect on a BlueStore OSD in Tentacle "
    f"({(jewel == 'in effect').sum()} did in Jewel)"
)
assert effective_now < (jewel == "in effect").sum()
assert 0.45 < effective_now / len(now) < 0.65, "'about half' in the text below"
assert now["objecter_infilght_op_bytes"] == "misspelt", "the MySQL conf misspells objecter_inflight_op_bytes"
assert now["filestore_queue_max_ops"] == "dead", "FileStore-only: a no-op on BlueStore"
assert now["osd_op_threads"] == "removed"

# %% [markdown]
# ## Were the throttles really raised tenfold?

# %%
throttles = [
    "objecter_inflight_ops",
    "objecter_inflight_op_bytes",
    "ms_dispatch_throttle_bytes",
    "filestore_queue_max_ops",
    "filestore_queue_max_bytes",
    "journal_max_write_entries",
    "journal_max_write_bytes",
]
rows = []
for name, f in confs.items():
    values = nb.seed_settings(f).drop_duplicates("key", keep="last").set_index("key").value
    for k in throttles:
        if k not in values.index:
            continue
        knob = catalog.get(k, "ceph")
        default = (
            knob.default_for("jewel")
            if knob.default_for("jewel") is not None
            else knob.default_for("pacific")
        )
        rows.append({"conf": name, "knob": k, "guide": float(values[k]), "default": float(default)})
ten = pd.DataFrame(rows).assign(factor=lambda d: (d.guide / d.default).round(1)).set_index(["conf", "knob"])
ten

# %%
claims = load("claims").set_index("id")
nb.check("stated throttle factor", float(claims.loc["objecter-throttles-10x", "value"]), 10)
mysql, sample = "All-NVMe MySQL ceph.conf", "sample ceph.conf"
nb.check(
    "ms_dispatch_throttle_bytes: guide / default",
    ten.loc[(mysql, "ms_dispatch_throttle_bytes"), "factor"],
    10,
)
nb.check(
    "journal_max_write_entries (MySQL conf): guide / default",
    ten.loc[(mysql, "journal_max_write_entries"), "factor"],
    10,
)
# Elsewhere the files go far beyond 10x:
nb.check(
    "objecter_inflight_ops (MySQL conf): guide / default",
    ten.loc[(mysql, "objecter_inflight_ops"), "factor"],
    100,
)
nb.check(
    "filestore_queue_max_ops (sample): guide / default",
    ten.loc[(sample, "filestore_queue_max_ops"), "factor"],
    100,
)
nb.check(
    "journal_max_write_bytes (sample): guide / default",
    ten.loc[(sample, "journal_max_write_bytes"), "factor"],
    100,
)

# %%
nb.errata("claims").loc[["guide-objecter-10240-vs-102400", "guide-journal-queueu-typo"]]

# %% [markdown]
# ## Chart: every non-debug key of the guide's ceph.conf files, release by release

# %%
states = [*STATES, "not catalogued"]
chart = (
    alt.Chart(grid)
    .mark_rect(stroke="white")
    .encode(
        x=alt.X(
            "release:N",
            sort=list(SUPPORTED_CEPH_RELEASES),
            title="Ceph release",
            axis=alt.Axis(orient="top", labelAngle=0),
        ),
        y=alt.Y("key:N", sort=list(keys.key), title=None),
        color=alt.Color(
            "state:N",
            sort=states,
            title="what the key does",
            legend=alt.Legend(labelLimit=300),
            scale=alt.Scale(
                domain=states,
                range=["#54a24b", "#eeca3b", "#72b7b2", "#b279a2", "#9d755d", "#bab0ac", "#79706e"],
            ),
        ),
        tooltip=["key", "release", "state", "note"],
    )
    .properties(
        width=300,
        height=alt.Step(13),
        title=alt.Title(
            f"{len(now) - effective_now} of the guide's {len(now)} ceph.conf keys do nothing on a Tentacle BlueStore OSD",
            subtitle="Seed 000 sample and All-NVMe MySQL ceph.conf; facts from flashtune's knob catalog",
        ),
    )
)
chart

# %% [markdown]
# ## Reading it
#
# In Jewel, the release the guide was written for, almost every key did something; on a current
# release only about half of them still do (the checks above give the counts). Two changes retired
# the rest. BlueStore became the default object store in Luminous, so every
# `filestore_*` and `journal_*` queue, the sync interval, the fd cache and the XFS mkfs/mount options
# now configure a component a BlueStore OSD does not run: Ceph accepts and ignores them, or they
# are gone altogether. And the
# OSD's threading was rebuilt around sharded queues (`osd_op_num_shards_*`, per device class), which
# removed `osd_op_threads`. What is left in effect is mostly the messenger and objecter budget
# (`objecter_inflight_*`, `ms_dispatch_throttle_bytes`), monitoring and PG warnings, and networking.
#
# The "10x" wording holds for the dispatch throttle and the MySQL file's journal entries, but the
# printed files go much further: the MySQL file raises `objecter_inflight_ops` 100 times (102400, the
# text says 10240), and the sample file raises the FileStore queue and journal write limits 50–100
# times. On BlueStore the comparable budgets are
# `bluestore_throttle_*` and the OSD's memory target, which are tuned in their own right rather than
# copied from these numbers. Note also the All-NVMe MySQL file's `objecter_infilght_op_bytes`: a typo
# Ceph silently ignores, so that throttle was never raised there.
#
# ## Knobs this justifies

# %%
nb.knob_table(
    [
        "objecter_inflight_ops",
        "objecter_inflight_op_bytes",
        "ms_dispatch_throttle_bytes",
        "filestore_queue_max_ops",
        "osd_op_threads",
        "osd_op_num_shards_ssd",
        "osd_objectstore",
        "objecter_infilght_op_bytes",
    ]
)

# %% [markdown]
# ## Your results
#
# Check your own ceph.conf with `lint-config --ceph-release <release> ceph.conf`; it reports the same
# states per key. A results file passed here is only listed.

# %%
if reader is not None:
    print(reader.groupby(["tool", "metric"]).size())
