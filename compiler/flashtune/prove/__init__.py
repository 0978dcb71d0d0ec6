"""`flashtune prove`: an A/B of a running cluster's settings against the compiled central config.

cluster (reaching Ceph) -> arms (what arm B sets) -> journal (every change first on disk; the restore)
-> probes (rados bench, fio rbd) -> run (the A B A B loop) -> stats (gain and its interval) -> report.
"""
