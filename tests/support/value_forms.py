"""Value spellings and files seen in public configs: what lint-config must report, and what the real
programs (ceph-conf, mariadbd, procps sysctl) are asked about the same text."""

from __future__ import annotations

SYSTEMD_RP_FILTER = (
    "net.ipv4.conf.default.rp_filter = 2\nnet.ipv4.conf.*.rp_filter = 2\n-net.ipv4.conf.all.rp_filter\n"
)


SIZE_FORMS = [
    "7",
    "7K",
    "7Ki",
    "7KB",
    "7KiB",
    "7k",
    "7kB",
    "7M",
    "7MiB",
    "7G",
    "7Gi",
    "7GiB",
    "7T",
    "7P",
    "7B",
    "7BB",
]
SIZE_FORMS += ["7Bi", "7 K", " 7K ", "7.5K", "7e3", "-7K", "+7K", "07K", "7KK", "7b", "0x7"]


MYSQL_SIZE_FORMS = [
    "1G",
    "1g",
    "1GB",
    "1GiB",
    "1Gx",
    "+1G",
    "1024M",
    "1073741824",
    "1 G",
    "1.5G",
    "0x40000000",
]
MYSQL_SIZE_FORMS += ["-1G", "1x", "2t"]
