"""S3 load across every gateway at once: PUT or GET of one object size, a fixed number of threads, for a time.

Threads are spread evenly over the gateways (thread t talks to gateway t mod G, in bucket t mod B), so every
gateway carries the same share of the load at the same time. Each thread issues one request at a time
until the sample's time is up and records each request's latency (from the call to the last byte of the
response read); a failed request counts as an error, never retried (botocore's retries are off: a retry
would hide a slow or refusing gateway). The sample is the whole run's figures as one JSON document
(SAMPLE_KEY marks it), which flashtune.ingest.s3probe reads into the tidy schema:

    ops, errors, bytes, elapsed_s        over all threads, from the first request to the last answer
    iops, bandwidth_mib_s                ops / elapsed, bytes / elapsed / 2^20
    latency_ms: mean min max p50 p90 p99 p99.9   (nearest-rank percentiles of every request)
    gateways: [{name, url, ops, errors, bytes}]   the share each gateway served

PUT samples write new keys under a prefix of their own and delete them afterwards, so every PUT sample
writes into the same, empty, key space; GET samples read the objects the prefill wrote (the same keys, in
the same order, in both arms). The bodies are fixed bytes per size, the same in every sample.
"""

from __future__ import annotations

import math
import random
import statistics
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from flashtune.errors import FlashtuneError
from flashtune.prove.rgw import Obj, Target

SAMPLE_KEY = "flashtune_s3_probe"  # the sample document's marker (its value: the format's version)
PERCENTILES = (50.0, 90.0, 99.0, 99.9)
MAX_ERROR_SHARE = 0.01  # a sample with more failed requests than this measures failures, not the cluster
DELETE_BATCH = 1000  # keys per DeleteObjects request (the S3 API's limit)


def connect(target: Target) -> None:
    """One botocore S3 client per gateway, as the run's user (clients are thread-safe; sessions are not)."""
    per = max(1, target.threads // len(target.gateways))
    config = Config(
        retries={"total_max_attempts": 1},
        connect_timeout=10,
        read_timeout=120,
        max_pool_connections=per + 2,
        s3={"addressing_style": "path"},
        # checksums only where S3 requires them: botocore >= 1.36 adds CRC headers and trailers by default,
        # which older gateways (Pacific's among them) may not understand
        request_checksum_calculation="when_required",
        response_checksum_validation="when_required",
    )
    session = boto3.session.Session()
    target.clients = [
        session.client(
            "s3",
            endpoint_url=g.url,
            aws_access_key_id=target.credentials.access_key,
            aws_secret_access_key=target.credentials.secret_key,
            region_name="us-east-1",
            config=config,
        )
        for g in target.gateways
    ]


def create_buckets(target: Target) -> None:
    for n, bucket in enumerate(target.buckets):
        _call(target.clients[n % len(target.clients)].create_bucket, Bucket=bucket)


def _call(fn: Any, **kw: Any) -> Any:
    try:
        return fn(**kw)
    except (BotoCoreError, ClientError) as e:
        raise FlashtuneError(f"S3 request failed: {e}") from None


_BODIES: dict[int, bytes] = {}


def body(size: int) -> bytes:
    """The fixed object body of a size (seeded bytes: incompressible, the same in every sample and arm)."""
    if size not in _BODIES:
        _BODIES[size] = random.Random(size).randbytes(size)
    return _BODIES[size]


def percentile(ordered: Sequence[float], p: float) -> float:
    """Nearest-rank percentile of sorted values."""
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass
class _Thread:
    index: int
    latencies: list[float] = field(default_factory=list)  # seconds, of the requests that succeeded
    errors: int = 0
    bytes: int = 0
    written: list[Obj] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)


def _worker(
    target: Target,
    op: str,
    size: int,
    deadline: float,
    prefix: str,
    reads: list[Obj],
    me: _Thread,
    stop: threading.Event,
) -> None:
    client = target.clients[target.gateway_of(me.index)]
    bucket = target.bucket_of(me.index)
    payload = body(size)
    n = 0
    while time.monotonic() < deadline and not stop.is_set():
        t0 = time.perf_counter()
        try:
            if op == "put":
                key = f"{prefix}/{me.index:04d}/{n:09d}"
                me.written.append((bucket, key))  # before the request: a half-written object is deleted too
                client.put_object(Bucket=bucket, Key=key, Body=payload)
                got = size
            else:  # every thread walks the whole data set from its own offset, the same walk every sample
                b, key = reads[(me.index + n * target.threads) % len(reads)]
                got = len(client.get_object(Bucket=b, Key=key)["Body"].read())
                if got != size:
                    raise FlashtuneError(f"GET {b}/{key} returned {got} bytes, not {size}")
        except (BotoCoreError, ClientError, FlashtuneError, OSError) as e:
            me.errors += 1
            if len(me.messages) < 3:
                me.messages.append(str(e)[:300])
        else:
            me.latencies.append(time.perf_counter() - t0)
            me.bytes += got
        n += 1


def _drive(target: Target, op: str, size: int, seconds: float, prefix: str) -> tuple[list[_Thread], float]:
    """Every thread issues requests until the time is up; (the threads' records, seconds elapsed)."""
    reads = target.data.get(size, [])
    if op == "get" and not reads:
        raise FlashtuneError(f"no prefilled {size}-byte objects to read: the prefill wrote none")
    threads = [_Thread(i) for i in range(target.threads)]
    stop = threading.Event()
    deadline = time.monotonic() + seconds
    started = time.perf_counter()
    workers = [
        threading.Thread(
            target=_worker,
            args=(target, op, size, deadline, prefix, reads, t, stop),
            name=f"s3-{t.index}",
        )
        for t in threads
    ]
    try:
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    except BaseException:
        # Ctrl-C or SIGTERM (run.signals_interrupt): every thread ends after its request in flight, so no
        # request races the restore that removes the user and its buckets
        stop.set()
        for w in workers:
            if w.is_alive():
                w.join()
        raise
    return threads, time.perf_counter() - started


def sample_document(
    target: Target,
    threads: Sequence[_Thread],
    *,
    case: str,
    op: str,
    size: int,
    seconds: float,
    elapsed: float,
) -> dict[str, Any]:
    """Sum the threads' requests into the sample's figures, overall and per gateway."""
    latencies = sorted(x for t in threads for x in t.latencies)
    ops = len(latencies)
    errors = sum(t.errors for t in threads)
    total = sum(t.bytes for t in threads)
    per_gateway = []
    for g_index, g in enumerate(target.gateways):
        mine = [t for t in threads if target.gateway_of(t.index) == g_index]
        per_gateway.append(
            {
                "name": g.name,
                "url": g.url,
                "threads": len(mine),
                "ops": sum(len(t.latencies) for t in mine),
                "errors": sum(t.errors for t in mine),
                "bytes": sum(t.bytes for t in mine),
            }
        )
    ms = [x * 1000 for x in latencies]
    latency = (
        {
            "mean": statistics.fmean(ms),
            "min": ms[0],
            "max": ms[-1],
            **{f"p{p:g}": percentile(ms, p) for p in PERCENTILES},
        }
        if ms
        else {}
    )
    doc: dict[str, Any] = {
        SAMPLE_KEY: 1,
        "case": case,
        "op": op,
        "object_size": size,
        "threads": len(threads),
        "seconds": seconds,
        "elapsed_s": elapsed,
        "ops": ops,
        "errors": errors,
        "bytes": total,
        "iops": ops / elapsed if elapsed > 0 else 0.0,
        "bandwidth_mib_s": total / elapsed / (1 << 20) if elapsed > 0 else 0.0,
        "latency_ms": latency,
        "gateways": per_gateway,
        "error_messages": [m for t in threads for m in t.messages][:5],
    }
    return doc


def check_sample(doc: dict[str, Any]) -> None:
    """A sample that measured failures (or nothing) stops the run; the restore then runs as always."""
    ops, errors = int(doc["ops"]), int(doc["errors"])
    if ops == 0 or errors > MAX_ERROR_SHARE * (ops + errors):
        said = "; ".join(doc.get("error_messages") or []) or "no request completed"
        raise FlashtuneError(
            f"{doc['case']}: {errors} of {ops + errors} S3 requests failed ({said})",
            suggestion="check the gateways (`ceph -s`, their logs); fewer --s3-threads if they refuse load",
        )


def written(threads: Sequence[_Thread]) -> list[Obj]:
    return [o for t in threads for o in t.written]


def delete(target: Target, objects: Sequence[Obj]) -> None:
    """Delete objects a PUT sample wrote, in DeleteObjects batches spread over the gateways."""
    by_bucket: dict[str, list[str]] = {}
    for bucket, key in objects:
        by_bucket.setdefault(bucket, []).append(key)
    batches = [
        (bucket, keys[i : i + DELETE_BATCH])
        for bucket, keys in by_bucket.items()
        for i in range(0, len(keys), DELETE_BATCH)
    ]

    def one(n: int) -> None:
        bucket, keys = batches[n]
        client = target.clients[n % len(target.clients)]
        _call(
            client.delete_objects,
            Bucket=bucket,
            Delete={"Objects": [{"Key": k} for k in keys], "Quiet": True},
        )

    with ThreadPoolExecutor(max_workers=max(1, min(target.threads, len(batches) or 1))) as pool:
        list(pool.map(one, range(len(batches))))


def run_sample(target: Target, case: str, op: str, size: int, seconds: float, prefix: str) -> dict[str, Any]:
    """One time-bounded sample on every gateway at once: the sample document (see the module's doc). A PUT
    sample writes keys under prefix and deletes them afterwards; a GET sample reads target.data[size]."""
    threads, elapsed = _drive(target, op, size, seconds, prefix)
    doc = sample_document(target, threads, case=case, op=op, size=size, seconds=seconds, elapsed=elapsed)
    if op == "put":
        delete(target, written(threads))
    return doc


def prefill(target: Target, size: int, seconds: float, prefix: str) -> dict[str, Any]:
    """Write the objects every GET sample of this size reads (kept until the restore removes the user)."""
    threads, elapsed = _drive(target, "put", size, seconds, prefix)
    doc = sample_document(
        target, threads, case=f"prefill-{size}", op="put", size=size, seconds=seconds, elapsed=elapsed
    )
    check_sample(doc)
    tried = set(written(threads))
    # an object whose PUT failed may not exist: read only what a listing shows
    listed: list[Obj] = []
    paginator = target.clients[0].get_paginator("list_objects_v2")
    for bucket in target.buckets:
        for page in paginator.paginate(Bucket=bucket, Prefix=prefix + "/"):
            listed += [(bucket, str(o["Key"])) for o in page.get("Contents", ())]
    target.data[size] = sorted(o for o in listed if o in tried)
    return doc
