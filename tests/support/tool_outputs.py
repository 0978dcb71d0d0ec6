"""IOzone and IOR outputs built in the tools' printed layout (neither is packaged in Debian), filled with the
Lustre study's published numbers; read by the ingest tests and the notebooks that overlay them."""

from __future__ import annotations

# Seed 002, Table 1, SSD system ("SDD" in the source), 16 nodes, MB/s (1 MB = 2^20 bytes)
TABLE1_SSD_16 = {
    "initial writers": 2523,
    "rewriters": 2923,
    "readers": 8518,
    "re-readers": 8515,
    "reverse readers": 6323,
    "stride readers": 7098,
    "pread readers": 8490,
    "pwrite writers": 2261,
    "random readers": 6552,
    "random writers": 3618,
    "mixed workload": 5404,
    "fwriters": 3533,
    "freaders": 8616,
}


def iozone_throughput_text(procs: int, results: dict[str, float], *, unit: str = "kB") -> str:
    out = [
        "\tIozone: Performance Test of File I/O",
        "\t        Version $Revision: 3.420 $",
        "\t\tCompiled for 64 bit mode.",
        "",
        "\tRun began: Tue Jan 14 10:00:00 2014",
        "",
        "\tNetwork distribution mode enabled.",
        "\tFile size set to 16777216 kB",
        "\tRecord Size 1024 kB",
        f"\tCommand line used: iozone.x86_64 -s 16G -r 1m -t {procs} -+m nodefile",
        "\tOutput is in kBytes/sec",
        "\tTime Resolution = 0.000001 seconds.",
        f"\tThroughput test with {procs} processes",
        "\tEach process writes a 16777216 kByte file in 1024 kByte records",
        "",
    ]
    for name, mb_s in results.items():
        total = mb_s * 1024  # IOzone prints kB/sec, 1 kB = 1024 bytes
        per = total / procs
        out += [
            f"\tChildren see throughput for {procs:2d} {name} \t= {total:10.2f} {unit}/sec",
            f"\tParent sees throughput for {procs:2d} {name} \t= {total * 0.98:10.2f} {unit}/sec",
            f"\tMin throughput per process \t\t\t= {per * 0.9:10.2f} {unit}/sec ",
            f"\tMax throughput per process \t\t\t= {per * 1.1:10.2f} {unit}/sec",
            f"\tAvg throughput per process \t\t\t= {per:10.2f} {unit}/sec",
            f"\tMin xfer \t\t\t\t\t= {16777216 * 0.9:10.2f} {unit}",
            "",
        ]
    return "\n".join(out) + "\n"


IOR3 = """IOR-3.3.0: MPI Coordinated Test of Parallel I/O
Began               : Mon Nov 16 10:00:00 2026
Command line        : ior -a POSIX -w -r -F -i 2 -t 64k -b 256m
Machine             : Linux client01
TestID              : 0
StartTime           : Mon Nov 16 10:00:00 2026
Path                : /scratch

Options:
api                 : POSIX
apiVersion          :
test filename       : testFile
access              : file-per-process
type                : independent
segments            : 1
ordering in a file  : sequential
ordering inter file : no tasks offsets
nodes               : 2
tasks               : 8
clients per node    : 4
repetitions         : 2
xfersize            : 65536 bytes
blocksize           : 256 MiB
aggregate filesize  : 2 GiB

Results:

access    bw(MiB/s)  IOPS       Latency(s)  block(KiB) xfer(KiB)  open(s)    wr/rd(s)   close(s)   total(s)   iter
------    ---------  ----       ----------  ---------- ---------  --------   --------   --------   --------   ----
write     1500.00    24000      0.000300    262144     64.00      0.001000   1.36       0.000500   1.37       0
read      3000.00    48000      0.000150    262144     64.00      0.000500   0.68       0.000300   0.68       0
write     1300.00    20800      0.000350    262144     64.00      0.001000   1.57       0.000500   1.58       1
read      2800.00    44800      0.000160    262144     64.00      0.000500   0.73       0.000300   0.73       1
remove    -          -          -           -          -          -          -          -          0.010000   1
Max Write: 1500.00 MiB/sec (1572.86 MB/sec)
Max Read:  3000.00 MiB/sec (3145.73 MB/sec)

Summary of all tests:
Operation   Max(MiB)   Min(MiB)  Mean(MiB)     StdDev   Max(OPs)   Min(OPs)  Mean(OPs)     StdDev    Mean(s) Stonewall(s) Stonewall(MiB) Test# #Tasks tPN reps fPP reord reordoff reordrand seed segcnt   blksiz    xsize aggs(MiB)   API RefNum
write        1500.00    1300.00    1400.00     100.00   24000.00   20800.00   22400.00    1600.00    1.47500         NA            NA     0      8   4    2   1     0        1         0    0      1 268435456    65536    2048.0 POSIX      0
read         3000.00    2800.00    2900.00     100.00   48000.00   44800.00   46400.00    1600.00    0.70500         NA            NA     0      8   4    2   1     0        1         0    0      1 268435456    65536    2048.0 POSIX      0
Finished            : Mon Nov 16 10:00:05 2026
"""
