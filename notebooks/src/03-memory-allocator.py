# %% [markdown]
# # 03 · Memory allocator: tcmalloc's thread cache or jemalloc?
#
# **Question.** The 2017 guide says jemalloc gave the best all-flash performance and that tcmalloc,
# Ceph's default, slowly loses performance in a running cluster unless its thread cache is enlarged.
# What exactly was measured, and what should I set today?
#
# **Data.** Only claims: the three figures behind this advice (thread cache size vs throughput,
# tcmalloc and jemalloc over time) are images missing from the text, and SanDisk's slide mentions
# tuning tcmalloc for small objects without numbers. This notebook lays out what was claimed, shows
# how thin the numeric evidence is compared with other topics, and gives a way to check the one
# testable claim — performance that decays over time — on your own runs.

# %% tags=["parameters"]
# Path to your own benchmark output (fio bw/iops logs of a long run, ...); None shows the published data only.
results = None

# %%
import altair as alt
import numpy as np

from flashtune import nb
from flashtune.tables import load

nb.setup()
reader = nb.reader_results(results)
allocator = nb.claims("memory_allocator")
claims = load("claims")
small = claims[claims.id == "sandisk-tcmalloc-small-objects"][["id", "statement", "value", "unit"]]
display(allocator)
small

# %% [markdown]
# ## Checks: the allocator claims and what they rest on

# %%
assert len(allocator) == 3 and allocator.figure_missing.sum() == 2, (
    "three allocator claims, two from lost figures"
)
assert (allocator.value == "").all(), "no allocator claim carries a number"
nb.check("object size below which SanDisk tuned tcmalloc (KiB)", float(small.value.iloc[0]), 32)

# %% [markdown]
# ## Chart: how much of each topic's evidence is a number you can check?

# %%
claims["evidence"] = "statement only"
claims.loc[claims.figure_missing, "evidence"] = "figure missing"
claims.loc[claims.value.notna(), "evidence"] = "number in the text"
per_topic = claims.groupby(["topic", "evidence"], observed=True).size().rename("claims").reset_index()
share = claims.assign(num=claims.evidence == "number in the text").groupby("topic", observed=True).num.mean()
nb.check("share of allocator claims with a number (%)", 100 * share["memory_allocator"], 0)
print(f"{(share > 0).sum()} of {len(share)} topics have at least one claim with a number")
chart = (
    alt.Chart(per_topic)
    .mark_bar()
    .encode(
        y=alt.Y("topic:N", sort="-x", title=None),
        x=alt.X("claims:Q", title="claims in the seeds", stack="zero"),
        color=alt.Color(
            "evidence:N",
            title="evidence",
            scale=alt.Scale(
                domain=["number in the text", "statement only", "figure missing"],
                range=["#4c78a8", "#bab0ac", "#b279a2"],
            ),
        ),
        opacity=alt.condition(alt.datum.topic == "memory_allocator", alt.value(1.0), alt.value(0.55)),
        tooltip=["topic", "evidence", "claims"],
    )
    .properties(
        height=420,
        title=alt.Title(
            "The allocator advice rests on figures that did not survive (memory_allocator row)",
            subtitle="All claims recorded from the five seeds, by topic and kind of evidence",
        ),
    )
)
chart

# %% [markdown]
# ## Reading it
#
# The allocator advice is plausible but unverifiable from the text: none of its claims has a number,
# two of three rest on lost figures, and the guide's claim is comparative (tcmalloc with an enlarged
# thread cache "comparable" to jemalloc, but degrading over time). Two facts help place it. Ceph's
# packages have long raised tcmalloc's total thread cache from its 32 MiB default through
# `TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES` (128 MiB in the distribution environment files), which is
# the tuning the guide describes. jemalloc, on the other hand, never became the allocator of Ceph's
# packages. Meanwhile the OSD's own memory management moved on: since Mimic (and Luminous 12.2.9)
# the OSD sizes its BlueStore cache to stay within `osd_memory_target`, which is the memory setting
# that matters most today.
#
# What you can check is the symptom: if an allocator (or anything else) makes an OSD slow down over
# hours, a long constant-load run shows a downward trend in IOPS. The section below fits that trend to
# your own fio logs.
#
# ## Knobs this justifies

# %%
nb.knob_table(
    [
        ("allocator", "TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES"),
        ("allocator", "LD_PRELOAD_jemalloc"),
        "osd_memory_target",
        "osd_memory_target_autotune",
        "bluestore_cache_autotune",
    ]
)

# %% [markdown]
# ## Your results: does throughput decay over time?
#
# Pass a fio IOPS or bandwidth log (`write_iops_log` with `log_avg_msec`) of a long, constant-load
# run. The notebook fits a straight line to the samples and reports the change per hour.

# %%
series = None
if reader is not None:
    series = reader[
        reader.time_s.notna() & reader.metric.isin(["iops", "bandwidth"]) & (reader.stat == "mean")
    ]
    if len(series) == 0:
        print("Your results hold no time series (fio log); nothing to fit.")
        series = None
if series is not None:
    metric = series.metric.iloc[0]
    one = series[series.metric == metric].astype({"time_s": float, "value": float})
    slope, intercept = np.polyfit(one.time_s, one.value, 1)
    change = slope * 3600 / one.value.mean()
    span = one.time_s.max() - one.time_s.min()
    print(f"{metric}: {one.value.mean():,.0f} {one.unit.iloc[0]} on average, trend {change:+.1%} per hour")
    if span < 600:
        print(
            f"(the run spans only {span:.0f} s: a per-hour trend needs a run of an hour or more to mean anything)"
        )
    display(
        nb.reader_chart(
            one,
            x=alt.X("time_s:Q", title="time since start (s)"),
            y=alt.Y("value:Q", title=f"{metric} ({one.unit.iloc[0]})"),
            tooltip=["test", "time_s", "value"],
            title=f"Your run: {metric} over time (trend {change:+.1%}/h)",
        )
    )
