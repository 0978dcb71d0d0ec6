# %% [markdown]
# # 11 · Recovery: how long, and how much do clients feel it, when an OSD or a chassis fails?
#
# **Question.** When a drive or a whole enclosure fails on an all-flash cluster, how long does
# Ceph take to heal, how much client throughput is lost meanwhile, and which knobs trade one for the
# other?
#
# **Data.** SanDisk's IF500 study (seed 003), 6-node cluster with 48 OSDs, 3-way chassis-level
# replication, 10 TB of user data (30 TB stored), clients running 64K random reads at queue depth 64
# during four events: one OSD marked down/out, the same OSD back in, a whole 128 TB chassis down/out,
# and the chassis back in. Recovery settings favoured client I/O. The charts in the slides are
# missing from the text; the notes with times and degradations are what we have.

# %% tags=["parameters"]
# Path to your own benchmark output (e.g. rados bench run during a recovery); None shows the published data only.
results = None

# %%
import altair as alt

from flashtune import nb
from flashtune.tables import load

nb.setup()
reader = nb.reader_results(results)
rec = load("sandisk_recovery")
rec[
    [
        "scenario",
        "failed_unit_label",
        "io_load",
        "recovery_time",
        "recovery_time_min_derived",
        "perf_degradation_pct",
        "failed_unit_size_TB",
    ]
]

# %% [markdown]
# ## Checks: healing times and client impact as stated

# %%
by = rec.set_index("scenario")
nb.check("1 OSD out: recovery time (min)", by.loc["osd_down_out", "recovery_time_min_derived"], 90)
nb.check("1 OSD out: client degradation (%)", by.loc["osd_down_out", "perf_degradation_pct"], 15)
nb.check("OSD back in: recovery time (min)", by.loc["osd_in", "recovery_time_min_derived"], 60)
nb.check("OSD back in: client degradation (%)", by.loc["osd_in", "perf_degradation_pct"], 5)
nb.check("chassis out: recovery time (h)", by.loc["chassis_down_out", "recovery_time_min_derived"] / 60, 7)
nb.check("chassis back in: recovery time (h)", by.loc["chassis_in", "recovery_time_min_derived"] / 60, 2)
# Implied healing rate: data that had to be re-replicated / time. 1 TB = 10^12 bytes, MB = 10^6.
rec["rate_MB_per_s"] = rec.failed_unit_size_TB * 1e6 / (rec.recovery_time_min_derived * 60)
rates = rec.set_index("scenario").rate_MB_per_s
print("implied recovery rate (MB/s):", rates.dropna().round(0).to_dict())
# A whole chassis holds ~8x the data of one OSD but heals in under 5x the time: more OSDs take part.
assert rates["chassis_down_out"] > rates["osd_down_out"]
nb.check("implied healing rate after one OSD out (MB/s)", rates["osd_down_out"], 220, rel=0.02)

# %% [markdown]
# ## Chart: time to heal, per event

# %%
event = {
    "osd_down_out": "1 OSD down/out",
    "osd_in": "the OSD back in",
    "chassis_down_out": "chassis down/out",
    "chassis_in": "the chassis back in",
}
rec["event"] = rec.scenario.astype(str).map(event)
rec["slowdown"] = rec.perf_degradation_pct.map(
    lambda p: f"clients -{p:.0f} %" if p == p else "slowdown not stated"
)
order = list(rec.scenario)
chart = (
    alt.Chart(rec)
    .mark_bar()
    .encode(
        y=alt.Y("event:N", sort=list(rec.event), title=None),
        x=alt.X("recovery_time_min_derived:Q", title="recovery / rebalancing time (minutes)"),
        color=alt.Color("scenario:N", title="event", sort=order, legend=None),
        tooltip=[
            "scenario",
            "io_load",
            "recovery_time",
            "perf_degradation_pct",
            "failed_unit_size_TB",
            alt.Tooltip("rate_MB_per_s:Q", format=".0f", title="implied MB/s"),
        ],
    )
    .properties(
        height=180,
        title=alt.Title(
            "Healing time on the IF500: an OSD in about an hour, a 128 TB chassis in hours",
            subtitle="SanDisk IF500, 48 OSDs, 3x chassis replication, clients on 64K random read during recovery",
        ),
    )
)
labels = chart.mark_text(align="left", dx=4).encode(text="slowdown:N", color=alt.value("#333"))
(chart + labels).resolve_scale(color="independent")

# %% [markdown]
# ## Reading it
#
# With recovery deprioritised behind client I/O, losing one of 48 OSDs cost clients about 15 % for
# an hour and a half while about 1.2 TB was re-replicated (roughly 220 MB/s of healing). Bringing it
# back cost 5 % for an hour. Losing a whole 128 TB chassis (about 10 TB of stored data) took about
# 7 hours to heal — faster in MB/s than one OSD, because many more OSDs took part — but the slide
# does not say what clients lost during it.
#
# The two dials are how many recovery operations run at once per OSD and how they are prioritised
# against client operations. In the releases the seeds ran these were `osd_max_backfills`,
# `osd_recovery_max_active` and the op priorities; from Quincy on, the mClock scheduler replaces them
# with a profile (`osd_mclock_profile`: `high_client_ops`, `balanced`, `high_recovery_ops`) and
# ignores the old limits unless `osd_mclock_override_recovery_settings` is set. Faster recovery
# means a shorter window in which a second failure can lose data; gentler recovery means a longer,
# milder client slowdown. On flash the safer default is to let recovery run at least `balanced`.
#
# ## Knobs this justifies

# %%
nb.knob_table(
    [
        "osd_mclock_profile",
        "osd_mclock_override_recovery_settings",
        "osd_max_backfills",
        "osd_recovery_max_active",
        "osd_recovery_max_active_ssd",
        "osd_recovery_op_priority",
        "osd_client_op_priority",
        "osd_recovery_sleep_ssd",
    ]
)

# %% [markdown]
# ## Your results
#
# Run `rados bench` (or fio) once on a healthy cluster and once while an OSD is out, and pass
# either output here: the bandwidth is listed, so you can compute your own slowdown against the
# published 15 %.

# %%
mine = nb.reader_metric(reader, "bandwidth")
if mine is not None:
    display(mine[["tool", "test", "workload", "op", "value", "unit"]])
