# %% [markdown]
# # 02 · Client CPU, NUMA and pinning: what was claimed, and what can be checked?
#
# **Question.** Is my benchmark limited by the storage cluster, or by the CPUs of the clients and
# OSD nodes driving it? And does pinning OSDs to the NUMA node of their NVMe drives and NIC matter?
#
# **Data.** The 2017 guide answers both with figures (client CPU cores vs cluster throughput; NUMA
# pinning vs default) whose images are missing from the text, so their numbers are lost. What
# remains is the claims themselves, and one table that does measure CPU on every tier of a cluster:
# SanDisk's RGW/erasure-code runs (seed 003), which report average CPU use of the OSD nodes, the
# RGW nodes and the COSBench client nodes next to the bandwidth they delivered.

# %% tags=["parameters"]
# Path to your own benchmark output (fio JSON reports CPU use per job); None shows the published data only.
results = None

# %%
import altair as alt
import pandas as pd

from flashtune import nb
from flashtune.tables import load

nb.setup()
reader = nb.reader_results(results)
nb.claims("client", "numa")

# %% [markdown]
# Both NUMA/client findings whose evidence was a figure are marked `figure_missing`: there is no
# number to check them against. The related advice elsewhere in the guide (RBD section) is to run
# each OSD in its own cgroup on dedicated cores and to set the CPU governor to `performance`.
#
# ## Checks: CPU per GB/s on each tier

# %%
ec = load("sandisk_ec_objects")
roles = {"osd": "OSD nodes", "rgw": "RGW nodes", "client": "COSBench clients"}
rows = []
for _, r in ec.dropna(subset=["client_cpu_pct_min"]).iterrows():
    for key, role in roles.items():
        lo, hi = r[f"{key}_cpu_pct_min"], r[f"{key}_cpu_pct_max"]
        rows.append(
            {
                "run": r["id"],
                "operation": r["operation"],
                "osd_drives": r["osd_drives"],
                "role": role,
                "bandwidth_GB_per_s": r["bandwidth_GB_per_s"],
                "cpu_lo": lo,
                "cpu_hi": hi,
                "cpu_mid": (lo + hi) / 2,
            }
        )
cpu = pd.DataFrame(rows).drop_duplicates(subset=["operation", "osd_drives", "role", "bandwidth_GB_per_s"])
cpu["cpu_pct_per_GB_per_s"] = (cpu.cpu_mid / cpu.bandwidth_GB_per_s).round(1)
cpu

# %%
client = cpu[cpu.role == "COSBench clients"].set_index(["operation", "osd_drives"])
nb.check("client CPU on 4M reads, 48 drives (% midpoint)", client.loc[("read", 48), "cpu_mid"], 72.5)
nb.check("read bandwidth, 48 drives (GB/s)", client.loc[("read", 48), "bandwidth_GB_per_s"], 13.69)
# Clients spend about the same CPU per GB/s on 48-drive writes and reads: client CPU tracks bandwidth.
per_read, per_write = (
    client.loc[("read", 48), "cpu_pct_per_GB_per_s"],
    client.loc[("write", 48), "cpu_pct_per_GB_per_s"],
)
print(f"client CPU per GB/s: read {per_read} %, write {per_write} %")
assert abs(per_read / per_write - 1) < 0.05
nb.check("client CPU per GB/s on reads (%)", per_read, 5.3, rel=0.02)
# At that rate the clients would run out of CPU near this bandwidth:
ceiling = 100 / per_read
print(f"client CPU would saturate near {ceiling:.0f} GB/s at 48-drive read costs")
assert ceiling < 20

# %% [markdown]
# ## Chart: CPU use against delivered bandwidth, by role

# %%
role_color = alt.Color("role:N", title="where the CPU was measured", sort=list(roles.values()))
base = alt.Chart(cpu).encode(
    x=alt.X("bandwidth_GB_per_s:Q", title="4 MB object bandwidth (GB/s)"),
    color=role_color,
)
ranges = base.mark_rule(strokeWidth=3).encode(
    y=alt.Y("cpu_lo:Q", title="average CPU use (%)", scale=alt.Scale(domain=[0, 100])), y2="cpu_hi:Q"
)
mids = base.mark_point(filled=True, size=80).encode(
    y="cpu_mid:Q",
    shape=alt.Shape("operation:N", title="operation"),
    tooltip=[
        "run",
        "role",
        "operation",
        "osd_drives",
        "bandwidth_GB_per_s",
        "cpu_lo",
        "cpu_hi",
        "cpu_pct_per_GB_per_s",
    ],
)
(ranges + mids).properties(
    title=alt.Title(
        "At 14 GB/s of reads the clients, not the OSDs, are the busiest CPUs",
        subtitle="SanDisk IF500 RGW on EC 4+2, COSBench 4 MB objects; bars span the stated CPU range",
    )
)

# %% [markdown]
# ## Reading it
#
# The figures behind the guide's client-CPU and NUMA advice are gone, but SanDisk's object runs show
# the same effect from another angle. On reads at 13.7 GB/s the four COSBench clients averaged
# 70–75 % CPU while the OSD nodes were at 55–60 %; per GB/s the clients paid about 5.3 % of their CPU,
# the same as on writes. A client tier sized like that would saturate before about 19 GB/s, whatever
# the storage could do. So before blaming the cluster, check that the load generators have headroom:
# a benchmark that saturates its own clients measures the clients.
#
# For NUMA, what can still be checked on your own nodes is where each NVMe drive and NIC is attached
# (`/sys/class/nvme/*/device/numa_node`, `/sys/class/net/*/device/numa_node`) and whether OSDs run
# on that node. Ceph since Nautilus does the pinning itself when `osd_numa_auto_affinity`
# is on and the drive and NIC share a node, or explicitly with `osd_numa_node`; the guide's
# `numactl --membind=0 --cpunodebind=0` wrapper around the startup script is no longer needed.
#
# ## Knobs this justifies

# %%
nb.knob_table(
    [
        "osd_numa_auto_affinity",
        "osd_numa_node",
        ("cpu", "numactl_cpunodebind"),
        ("cpu", "scaling_governor"),
        ("cpu", "dedicated_cores"),
        "osd_op_num_shards_ssd",
    ]
)

# %% [markdown]
# ## Your results
#
# fio reports the CPU time of each job (`usr_cpu` + `sys_cpu`, in % of one CPU). Dividing it by the
# job's IOPS gives the client CPU cost of an I/O on your machine: the figure to compare when you
# change engines, queue depth, or pinning (`numactl --cpunodebind` around fio).

# %%
usr = nb.reader_metric(reader, "cpu_usr", tool="fio")
iops = nb.reader_metric(reader, "iops", tool="fio")
if usr is not None and iops is not None:
    sys_ = nb.reader_metric(reader, "cpu_sys", tool="fio")
    jobs = iops.groupby("test", as_index=False).value.sum().rename(columns={"value": "iops"})
    jobs = jobs.merge(usr.rename(columns={"value": "usr"})[["test", "usr"]], on="test")
    jobs = jobs.merge(sys_.rename(columns={"value": "sys"})[["test", "sys"]], on="test")
    jobs["cpu_pct"] = jobs.usr + jobs.sys
    jobs["cpu_pct_per_10k_iops"] = (jobs.cpu_pct / jobs.iops * 10_000).round(2)
    display(jobs)
    display(
        nb.reader_chart(
            jobs,
            x=alt.X("iops:Q", title="IOPS of the job", scale=alt.Scale(type="log")),
            y=alt.Y("cpu_pct:Q", title="fio CPU use, usr + sys (% of one CPU)"),
            tooltip=["test", "iops", "cpu_pct", "cpu_pct_per_10k_iops"],
            title="Your fio jobs: CPU spent against IOPS delivered",
        )
    )
