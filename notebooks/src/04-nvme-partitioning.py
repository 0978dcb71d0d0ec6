# %% [markdown]
# # 04 · NVMe partitioning: how many OSDs per NVMe device?
#
# **Question.** One OSD per NVMe drive is the simple layout. The 2017 guide says a single OSD cannot
# use an NVMe SSD's bandwidth and that four partitions (four OSDs) per drive is the optimum. Is that
# backed by numbers I can check, what did the published clusters actually run, and does it still hold?
#
# **Data.** The guide's two claims (the latency and CPU figures behind them are missing from the
# text), the OSD counts and data-drive counts of every published cluster (hardware and setup tables),
# and the guide's own CBT test plan for its All-NVMe MySQL cluster.

# %% tags=["parameters"]
# Path to your own benchmark output (fio JSON, ideally one job per numjobs value); None = published only.
results = None

# %%
import altair as alt
import pandas as pd

from flashtune import nb
from flashtune.tables import load

nb.setup()
reader = nb.reader_results(results)
nb.claims("nvme_partitioning")

# %% [markdown]
# ## Checks: the claimed optimum against the published layouts

# %%
params = load("setup_parameters").set_index("id")
hw = load("hardware").set_index("id")
four = load("claims").set_index("id").loc["four-osds-per-nvme"]
nb.check("claimed optimum (OSDs per NVMe SSD)", float(four.value), 4)

# OSDs per data device in each published set-up: OSDs per node / data drives per node.
layouts = [
    (
        "guide MySQL CBT plan, IOPS tier",
        params.loc["guide-mysql-cbt-osds-per-node", "value_number"],
        hw.loc["guide-tier-iops", "data_device_count_max"],
    ),
    (
        "Intel 5-node, as the text says",
        params.loc["slides-5node-cluster-osds-per-storage-node", "value_number"],
        hw.loc["slides-5node-storage", "data_device_count_max"],
    ),
    (
        "Intel 5-node, as the diagram shows",
        params.loc["slides-5node-cluster-osds-per-node-in-diagram", "value_number"],
        hw.loc["slides-5node-storage", "data_device_count_max"],
    ),
    (
        "SanDisk 2-node (IF100 flash cards)",
        params.loc["sandisk-2node-osds-per-node", "value_number"],
        hw.loc["sandisk-2node-osd", "data_device_count_max"],
    ),
    (
        "SanDisk 6-node (IF100 flash cards)",
        params.loc["sandisk-6node-osds-per-node", "value_number"],
        hw.loc["sandisk-6node-osd", "data_device_count_max"],
    ),
]
layout = pd.DataFrame(layouts, columns=["setup", "osds_per_node", "data_devices_per_node"])
layout["osds_per_device"] = layout.osds_per_node.astype(float) / layout.data_devices_per_node.astype(float)
layout

# %%
per = layout.set_index("setup").osds_per_device
# The guide's own CBT plan runs 16 OSDs per node on the IOPS tier's 4 NVMe drives: its own advice.
nb.check("guide CBT plan: OSDs per NVMe", per.iloc[0], 4)
# The Intel slides contradict themselves: 4 OSDs on 4 drives in the text, 16 per node in the diagram.
assert per.iloc[1] == 1 and per.iloc[2] == 4
# SanDisk ran one OSD per flash card.
assert (per.iloc[3:] == 1).all()

# %% [markdown]
# ## Chart: OSDs per data device in the published set-ups

# %%
chart = (
    alt.Chart(layout)
    .mark_bar()
    .encode(
        y=alt.Y("setup:N", sort=list(layout.setup), title=None),
        x=alt.X("osds_per_device:Q", title="OSDs per data device", scale=alt.Scale(domain=[0, 5])),
        color=alt.condition(alt.datum.osds_per_device >= 4, alt.value("#4c78a8"), alt.value("#bab0ac")),
        tooltip=["setup", "osds_per_node", "data_devices_per_node", "osds_per_device"],
    )
)
rule = alt.Chart(pd.DataFrame({"x": [4]})).mark_rule(strokeDash=[6, 3]).encode(x="x:Q")
(chart + rule).properties(
    title=alt.Title(
        "Only the guide's own plan (and one reading of Intel's diagram) used 4 OSDs per device",
        subtitle="OSDs per node ÷ data drives per node; dashed line: the guide's claimed optimum",
    )
)

# %% [markdown]
# ## Reading it
#
# The four-per-drive advice comes from lost figures (OSD latency and CPU use against partitions per
# SSD), so its size cannot be checked here. What can be checked is consistency: the guide's own
# MySQL test plan runs 16 OSDs per node on the IOPS tier's four NVMe drives, which is four per drive;
# Intel's BlueStore slides say one OSD per P3520 in the text but draw sixteen per node; SanDisk ran
# one OSD per flash card and reported CPU saturation instead.
#
# The reason behind the advice was that a 2016 OSD could not keep an NVMe drive's queues busy: a
# single OSD's threads, locks and messenger capped its I/O rate well below the device's. Splitting a
# drive into several OSDs multiplies those threads, at the price of more memory (each OSD wants its
# own `osd_memory_target`, 4 GiB by default), more CPU and more PGs. Later releases narrowed the gap
# (sharded op queues with per-device-class defaults, BlueStore, the async messenger), and
# `ceph-volume lvm batch` creates one OSD per device unless told otherwise with
# `--osds-per-device N`, which remains the way to split a drive that is fast enough when there are
# spare cores and RAM.
# Measure before splitting: if one OSD per drive leaves CPU idle while the device is far from its
# rated IOPS, a second OSD per drive is worth trying.
#
# ## Knobs this justifies

# %%
nb.knob_table(
    [
        "osd_op_num_shards_ssd",
        "osd_op_num_threads_per_shard_ssd",
        "osd_memory_target",
        "mon_target_pg_per_osd",
    ]
)

# %% [markdown]
# ## Your results
#
# The device-level version of the question is how many parallel streams a drive needs before its
# IOPS stop growing. Run fio against the raw drive with `numjobs=1,2,4,8` (one job section per value,
# `group_reporting=1`) and pass the JSON: the chart shows IOPS against parallel jobs.

# %%
mine = nb.reader_metric(reader, "iops", tool="fio")
if mine is not None:
    mine = mine.assign(streams=mine.threads.astype(float) * mine.iodepth.astype(float))
    display(mine[["test", "workload", "op", "threads", "iodepth", "streams", "value"]])
    display(
        nb.reader_chart(
            mine,
            x=alt.X(
                "streams:Q",
                title="parallel I/O streams (numjobs × iodepth)",
                scale=alt.Scale(type="log", base=2),
            ),
            y=alt.Y("value:Q", title="IOPS"),
            tooltip=["test", "workload", "threads", "iodepth", "value"],
            title="Your device: IOPS against parallel streams",
        )
    )
