# %% [markdown]
# # 10 · RGW on erasure coding: which technique, how many drives, and what happens degraded?
#
# **Question.** I want an S3 object store on flash with a 4+2 erasure-coded bucket pool. Does the
# erasure-code technique matter for throughput, do more drives help writes, and how bad are reads
# when one or two nodes are down?
#
# **Data.** SanDisk's InfiniFlash IF500 study (seed 003): COSBench with 4 MB objects through 16
# RGW instances on 4 gateway servers, 512 workers, a host-level 4+2 jerasure pool for
# `.rgw.buckets`. Four tables: Reed-Solomon throughput, write scaling from 48 to 96 drives,
# Cauchy-good throughput, and reads with one or two nodes down for both techniques.

# %% tags=["parameters"]
# Path to your own benchmark output (rados bench, COSBench via CBT, ...); None shows the published data only.
results = None

# %%
import altair as alt
import pandas as pd

from flashtune import nb
from flashtune.tables import load

nb.setup()
reader = nb.reader_results(results)
ec = load("sandisk_ec_objects")
ec[
    [
        "table",
        "operation",
        "ec_technique",
        "cluster_state",
        "osd_drives",
        "bandwidth_GB_per_s",
        "resp_time_90pct_ms",
        "osd_cpu_pct_min",
        "osd_cpu_pct_max",
    ]
]

# %% [markdown]
# ## Checks: the slide claims, recomputed


# %%
def bw(table: str, technique: str, op: str, state: str = "optimal", drives: float | None = None) -> float:
    rows = ec[
        (ec.table == table)
        & (ec.ec_technique == technique)
        & (ec.operation == op)
        & (ec.cluster_state == state)
    ]
    if drives is not None:
        rows = rows[rows.osd_drives == drives]
    (value,) = rows.bandwidth_GB_per_s
    return float(value)


rs_w, rs_r = bw("ec_throughput", "reed_solomon", "write"), bw("ec_throughput", "reed_solomon", "read")
cg_w, cg_r = bw("ec_cauchy", "cauchy_good", "write"), bw("ec_cauchy", "cauchy_good", "read")
nb.check("RS 4M read, 48 drives (GB/s): '~14GB/s'", rs_r, 14, rel=0.03)
nb.check("RS 4M write, 48 drives (GB/s): '~3GB/s'", rs_w, 3, rel=0.05)
# "Cauchy-good optimal write performance is at least 33% better ... in some runs around 45%"
write_gain = cg_w / rs_w - 1
print(f"Cauchy-good writes {write_gain:.1%} faster than Reed-Solomon")
assert 0.40 < write_gain <= 0.46, "'at least 33 %, up to 45 %' on the slide; 'over 40 %' in our text"
# "Cauchy-good optimal read performance 10% better": the table gives less than half of that.
read_gain = cg_r / rs_r - 1
print(f"Cauchy-good reads {read_gain:.1%} faster (the slide says 10%)")
assert read_gain < 0.10
nb.check("Cauchy-good read gain (%)", 100 * read_gain, 5, rel=0.1)
# "With increase in OSD drives (2x) write performance improve by around 65-70%"
w48, w96 = (
    bw("ec_scaling", "reed_solomon", "write", drives=48),
    bw("ec_scaling", "reed_solomon", "write", drives=96),
)
scale_gain = w96 / w48 - 1
print(f"48 -> 96 drives: writes +{scale_gain:.1%} (the slide says 65-70%)")
assert 0.65 <= scale_gain <= 0.72
# Degraded reads as a share of the same technique's optimal reads.
degraded = ec[ec.table == "ec_degraded"].copy()
optimal_read = {"reed_solomon": rs_r, "cauchy_good": cg_r}
degraded["share_of_optimal"] = degraded.bandwidth_GB_per_s / degraded.ec_technique.map(optimal_read).astype(
    float
)
two_down = (
    degraded[degraded.cluster_state == "degraded_2_nodes_down"].set_index("ec_technique").bandwidth_GB_per_s
)
ratio = two_down["cauchy_good"] / two_down["reed_solomon"]
print(f"two nodes down: Cauchy-good reads {ratio:.2f}x Reed-Solomon ('almost double' and more)")
assert ratio > 1.9
share = degraded.set_index(["ec_technique", "cluster_state"]).share_of_optimal
assert (
    share[("reed_solomon", "degraded_2_nodes_down")] < 0.30
    and share[("cauchy_good", "degraded_2_nodes_down")] > 0.65
)
degraded[
    ["ec_technique", "cluster_state", "bandwidth_GB_per_s", "share_of_optimal", "resp_time_90pct_ms"]
].round(2)

# %% [markdown]
# What the data package records as errata for these tables and claims:

# %%
pd.concat(
    [
        nb.errata("sandisk_ec_objects"),
        nb.errata("claims").loc[["sandisk-cauchy-read-10pct", "sandisk-almost-double"]],
    ]
)

# %% [markdown]
# ## Chart: 4 MB object bandwidth by technique and cluster state

# %%
label = {"optimal": "healthy", "degraded_1_node_down": "1 node down", "degraded_2_nodes_down": "2 nodes down"}
view = ec[ec.table.isin(["ec_throughput", "ec_cauchy", "ec_degraded"])].copy()
view["case"] = view.operation.astype(str) + ", " + view.cluster_state.astype(str).map(label)
cases = ["write, healthy", "read, healthy", "read, 1 node down", "read, 2 nodes down"]
technique = alt.Color(
    "ec_technique:N",
    title="jerasure technique",
    scale=alt.Scale(domain=["reed_solomon", "cauchy_good"], range=["#9d755d", "#4c78a8"]),
)
chart = (
    alt.Chart(view)
    .mark_bar()
    .encode(
        x=alt.X("case:N", sort=cases, title=None, axis=alt.Axis(labelAngle=0)),
        xOffset=alt.XOffset("ec_technique:N"),
        y=alt.Y("bandwidth_GB_per_s:Q", title="aggregate bandwidth (GB/s)"),
        color=technique,
        tooltip=["case", "ec_technique", "bandwidth_GB_per_s", "resp_time_90pct_ms", "osd_cpu_pct_max"],
    )
    .properties(
        title=alt.Title(
            "RGW on a 4+2 EC pool: Cauchy-good writes faster and degrades far less",
            subtitle="SanDisk InfiniFlash IF500, COSBench 4 MB objects, 48 drives",
        )
    )
)
mine = nb.reader_metric(reader, "bandwidth", tool="rados-bench")
if mine is not None:
    mine = mine.assign(case="your run", bandwidth_GB_per_s=mine.value / 1024)
    chart = chart.encode(
        x=alt.X("case:N", sort=[*cases, "your run"], title=None, axis=alt.Axis(labelAngle=0))
    )
nb.with_reader(chart, mine, x="case", y="bandwidth_GB_per_s", tooltip=["workload", "block_size_bytes"])

# %% [markdown]
# ## Reading it
#
# Healthy reads are limited by the network of the gateways and storage nodes (SanDisk saw about
# 3.8 GB/s per storage node), so the technique barely changes them: Cauchy-good reads only about 5 %
# faster, not the 10 % the slide states. Writes are where the technique shows: Cauchy-good writes are
# over 40 % faster, because its bit-matrix coding needs fewer CPU operations per encoded byte than
# Reed-Solomon's Galois-field multiplications. Writes also scale with drives: doubling from 48 to 96
# drives raised write bandwidth by about 71 % and cut the 90th-percentile response time from 1870 ms
# to 420 ms.
#
# The biggest difference is degraded: a read that misses a chunk has to be decoded, which is CPU
# work on the OSD. With two nodes down Reed-Solomon fell to under 30 % of its healthy read bandwidth
# while Cauchy-good kept about 70 %. On today's Ceph, the `jerasure` plugin with `cauchy_good` (or
# the ISA-L plugin on x86) is the better default for flash EC pools, and k+m must fit the failure
# domain: a host-level 4+2 pool needs at least 6 hosts, better 7 so it can heal.
#
# ## Knobs this justifies

# %%
nb.knob_table(
    [
        "ec.plugin",
        "ec.technique",
        "ec.k",
        "ec.m",
        "ec.crush-failure-domain",
        "ec.stripe_unit",
        "osd_pool_erasure_code_stripe_width",
        "rgw_thread_pool_size",
        "rgw_cache_lru_size",
        "rgw_enable_ops_log",
        "rgw_enable_usage_log",
    ]
)

# %% [markdown]
# ## Your results
#
# Pass `rados bench` output (or a CBT archive with it): its bandwidth is drawn as "your run". rados
# bench talks to RADOS directly, so it is the ceiling an RGW in front of the same pool can reach.

# %%
if mine is not None:
    display(mine[["test", "workload", "block_size_bytes", "bandwidth_GB_per_s"]])
