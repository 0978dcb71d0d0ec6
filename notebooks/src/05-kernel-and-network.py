# %% [markdown]
# # 05 · Kernel and network: which of the 2017 sysctl settings still make sense?
#
# **Question.** The guide prints two sysctl lists to apply on every Ceph node: a RHEL-style base
# file and a "sample sysctl.conf" of network and IPC limits. What does each setting do, which ones no
# longer exist on current kernels, and which are unsafe to copy?
#
# **Data.** The two lists as printed in the guide (seeds 000/001; extracted to
# `tests/fixtures/seed-configs/`), the knob catalog's facts for every key (what it does, when it was
# removed, which values are risky), the guide's quantified network claims, and flashtune's linter
# run on both files.

# %% tags=["parameters"]
# Path to your own benchmark output; this topic has no benchmark overlay (see the end). None = published only.
results = None

# %%
import altair as alt
import pandas as pd

from flashtune import nb
from flashtune.tables import load

nb.setup()
reader = nb.reader_results(results)
lists = {"kernel tuning list": "000-kernel-sysctl.conf", "sample sysctl.conf": "000-sample-sysctl.conf"}
settings = pd.concat([nb.seed_settings(f).assign(list=name) for name, f in lists.items()], ignore_index=True)


def status(row: pd.Series) -> str:
    """The catalog's verdict on one line (status, value safety, default), in this topic's words."""
    if row.state == "not catalogued":
        return "not catalogued"
    if row.state != "in effect":
        return f"gone ({row.note})"
    if row.safety != "safe":
        return f"unsafe value ({row.safety})"
    return "same as kernel default" if row.is_default else "changes a default"


settings = nb.status_grid(settings, "sysctl", [None])
settings["status"] = settings.apply(status, axis=1)
settings["kind"] = settings.status.str.replace(r" \(.*\)|since .*", "", regex=True).str.strip()
settings[["list", "line", "key", "value", "status"]]

# %% [markdown]
# ## Checks: the lists as printed, against the catalog and the linter

# %%
counts = settings.groupby("list").size()
nb.check("keys in the kernel tuning list", counts["kernel tuning list"], 17)
nb.check("keys in the sample sysctl.conf", counts["sample sysctl.conf"], 15)
gone = settings[settings.status.str.startswith("gone")]
unsafe = settings[settings.status.str.startswith("unsafe")]
print("gone:", list(gone.key), "| unsafe:", list(unsafe.key))
port_lint = nb.lint_findings("000-sample-sysctl.conf")
assert "net.ipv4.ip_local_port_range" in set(port_lint.key), "the port range overlaps Ceph's ports"
assert "net.ipv4.tcp_tw_recycle" in set(gone.key), "tcp_tw_recycle was removed in Linux 4.12"
assert "net.ipv4.tcp_syncookies" in set(unsafe.key), "syncookies=0 drops the SYN-flood defence"
assert (settings.status != "not catalogued").all(), "every key the guide sets is in the catalog"
jumbo = load("claims").set_index("id").loc["jumbo-frames-9000"]
nb.check("MTU the guide found helpful (bytes)", float(jumbo.value), 9000)

# %% [markdown]
# ## Chart: what each printed setting amounts to today

# %%
kinds = ["gone", "unsafe value", "changes a default", "same as kernel default"]
chart = (
    alt.Chart(settings)
    .mark_bar()
    .encode(
        y=alt.Y("list:N", title=None),
        x=alt.X("count():Q", title="sysctl keys"),
        color=alt.Color(
            "kind:N",
            sort=kinds,
            title="today",
            scale=alt.Scale(domain=kinds, range=["#b279a2", "#eeca3b", "#4c78a8", "#bab0ac"]),
        ),
        order=alt.Order("kind_order:Q"),
        tooltip=["list", "key", "value", "status"],
    )
    .transform_calculate(kind_order=f"indexof({kinds!r}, datum.kind)")
    .properties(
        height=120,
        title=alt.Title(
            "The guide's sysctl lists, key by key, against today's kernels",
            subtitle="Ceph wiki 'Tuning for All Flash Deployments' (2017); status from flashtune's knob catalog",
        ),
    )
)
chart

# %% [markdown]
# ## Reading it
#
# The first list is mostly a stock RHEL 6 `sysctl.conf` with a few additions; the second raises
# network and IPC limits. Three kinds of entry stand out:
#
# * **Gone.** `net.ipv4.tcp_tw_recycle` was removed in Linux 4.12 after it broke clients behind NAT;
#   `sysctl -p` now reports an error for it. The bridge-netfilter keys exist only when the
#   `br_netfilter` module is loaded, and the conntrack keys only with `nf_conntrack`.
# * **Unsafe.** `tcp_syncookies = 0` removes the kernel's defence against SYN floods for no measurable
#   gain on a storage network. The linter adds one the catalog alone does not show: the sample's
#   `ip_local_port_range = 1024 65000` lets outgoing connections take Ceph's own daemon ports (3300,
#   6789, 6800–7300), so a restarting OSD or monitor may find its port taken. The `kernel.shm*`, `msg*` and `sem` limits were for databases sharing
#   the host and do nothing for Ceph.
# * **Still sensible, with care.** A deeper `netdev_max_backlog` and a larger `somaxconn` help
#   many-connection traffic on 10–40 GbE. The 1 MiB `net.core.rmem_*`/`wmem_*` values only change
#   sockets that size their own buffers; TCP connections such as Ceph's messenger are sized by the
#   kernel's autotuning (`net.ipv4.tcp_rmem`/`tcp_wmem`), which the guide leaves alone.
#   `fs.file-max` is already very large on current systems.
#
# The one quantified network claim (9000-byte MTU helps sequential reads and writes) is a
# switch-and-NIC setting, not a sysctl; it only helps if every hop carries jumbo frames.
#
# ## The linter on both lists

# %%
pd.concat([nb.lint_findings(f).assign(list=name) for name, f in lists.items()], ignore_index=True)

# %% [markdown]
# ## Knobs this justifies

# %%
nb.knob_table(
    [
        ("sysctl", k)
        for k in [
            "net.ipv4.tcp_tw_recycle",
            "net.ipv4.tcp_syncookies",
            "net.core.rmem_max",
            "net.core.wmem_max",
            "net.core.netdev_max_backlog",
            "net.core.somaxconn",
            "fs.file-max",
        ]
    ]
    + [("nic", "mtu")]
)

# %% [markdown]
# ## Your results
#
# Kernel settings are checked against your hosts with `lint-config /etc/sysctl.d/*.conf`, not with a
# benchmark file; a results file passed here is only listed.

# %%
if reader is not None:
    print(reader.groupby(["tool", "metric"]).size())
