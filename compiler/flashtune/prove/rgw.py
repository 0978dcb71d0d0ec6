"""The rgw workload's S3 side: which gateways to drive, and the throwaway S3 user the probes run as.

Gateways are found as the cluster reports them: every `rgw` daemon in `ceph service dump` carries its
frontend configuration in its metadata (`frontend_config#0`, e.g. `beast endpoint=127.0.0.1:8080` or
`beast port=7480`, the `rgw_frontends` value it runs with) and the host it runs on (`hostname`). The keys
RGW's frontends take are in Ceph's src/rgw/rgw_asio_frontend.cc (beast: port, endpoint, ssl_port,
ssl_endpoint) and src/rgw/rgw_civetweb_frontend.cc (civetweb: port, `+`-joined, an `s` suffix meaning TLS).
Or the operator gives the endpoints (--s3-endpoint); a gateway that does not answer an HTTP request stops the
run before anything changes.

The S3 user is created with radosgw-admin for one run (uid `flashtune-prove-<tag>`), journaled *before* it
is created; the restore removes it with its buckets and objects (`radosgw-admin user rm --purge-data`),
then checks that neither the user nor a bucket of the run is left.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from flashtune.errors import FlashtuneError
from flashtune.prove.cluster import CephCommandError, Cluster

USER_PREFIX = "flashtune-prove-"
_ENDPOINT = re.compile(r"^(?:\[(?P<v6>[^\]]+)\]|(?P<host>[^:\[\]]+))(?::(?P<port>\d+))?$")
_WILDCARD = {"0.0.0.0", "::", ""}


class NoBoto3(FlashtuneError):
    pass


@dataclass(frozen=True)
class Gateway:
    name: str  # the daemon's id (client.rgw.<id>), or the URL where the operator gave it
    url: str  # http(s)://host:port


@dataclass(frozen=True)
class Credentials:
    uid: str
    access_key: str
    secret_key: str


Obj = tuple[str, str]  # (bucket, key)


@dataclass
class Target:
    """Where and as whom the S3 probes run (flashtune.prove.s3load drives it)."""

    gateways: list[Gateway]
    credentials: Credentials
    buckets: list[str]
    threads: int  # in all, a multiple of the number of gateways
    data: dict[int, list[Obj]] = field(default_factory=dict)  # object size -> the prefilled objects
    clients: list[Any] = field(default_factory=list)  # one botocore S3 client per gateway (s3load.connect)

    def gateway_of(self, thread: int) -> int:
        return thread % len(self.gateways)

    def bucket_of(self, thread: int) -> str:
        return self.buckets[thread % len(self.buckets)]


def threads_for(wanted: int, gateways: int) -> int:
    """The thread count rounded up to a multiple of the gateways: each gateway carries the same load."""
    return max(1, -(-max(1, wanted) // gateways)) * gateways


def bucket_names(prefix: str, threads: int) -> list[str]:
    """Up to 8 buckets: the writers spread over several bucket indexes, as a gateway shared by many sees them."""
    return [f"{prefix}-{n}" for n in range(min(8, max(1, threads)))]


def require_boto3() -> None:
    """The S3 probes drive the gateways with boto3, an optional extra: a clear error where it is missing."""
    try:
        import boto3  # noqa: F401
    except ImportError:
        raise NoBoto3(
            "the S3 probes (the rgw workload) drive the gateways with boto3, which is not installed",
            suggestion="pip install 'flashtune[s3]' (Debian: apt install python3-boto3), or choose other "
            "probes with --probe",
        ) from None


def _url(scheme: str, address: str, port: str, hostname: str) -> str:
    host = hostname if address in _WILDCARD else address
    if ":" in host:  # an IPv6 literal
        host = f"[{host}]"
    return f"{scheme}://{host}:{port}"


def frontend_urls(config: str, hostname: str) -> list[str]:
    """The URLs one `rgw_frontends` entry listens on, plain HTTP first. A wildcard address (0.0.0.0, ::) or a
    bare port means every address of the host: the daemon's host name stands for it."""
    words = config.split()
    plain: list[str] = []
    tls: list[str] = []
    for word in words[1:]:
        key, _, value = word.partition("=")
        if key in ("endpoint", "ssl_endpoint"):
            m = _ENDPOINT.match(value)
            if m is None or m.group("port") is None:  # beast's default port: not something to guess
                continue
            address = m.group("v6") or m.group("host") or ""
            (tls if key == "ssl_endpoint" else plain).append(
                _url("https" if key == "ssl_endpoint" else "http", address, m.group("port"), hostname)
            )
        elif key in ("port", "ssl_port"):
            for part in value.split("+"):  # civetweb: port=80+443s, port=127.0.0.1:8080
                secure = key == "ssl_port" or part.endswith("s")
                address, _, port = part.rstrip("s").rpartition(":")
                if port.isdigit():
                    (tls if secure else plain).append(
                        _url("https" if secure else "http", address, port, hostname)
                    )
    return plain + tls


def gateways_in(service_dump: object) -> list[Gateway]:
    """Every rgw daemon of a `ceph service dump -f json` document, one URL each (its first plain-HTTP one)."""
    services = service_dump.get("services") if isinstance(service_dump, dict) else None
    rgw = services.get("rgw") if isinstance(services, dict) else None
    daemons = rgw.get("daemons") if isinstance(rgw, dict) else None
    out: list[Gateway] = []
    for key, daemon in sorted((daemons or {}).items()):
        if not isinstance(daemon, dict):  # the "summary" entry
            continue
        meta = daemon.get("metadata") or {}
        name = str(meta.get("id") or key)
        host = str(meta.get("hostname") or "")
        configs = [str(v) for k, v in sorted(meta.items()) if k.startswith("frontend_config#")]
        urls = [u for c in configs for u in frontend_urls(c, host)]
        if not urls:
            raise FlashtuneError(
                f"gateway {name} on {host or 'an unknown host'}: no listening port in its frontend config "
                f"({'; '.join(configs) or 'none reported'})",
                suggestion="give the gateways' URLs with --s3-endpoint (repeat it once per gateway)",
            )
        out.append(Gateway(name, urls[0]))
    return out


def discover(cluster: Cluster, given: tuple[str, ...] = ()) -> list[Gateway]:
    """The gateways to drive: the operator's URLs, else every rgw daemon the service map lists."""
    if given:
        return [Gateway(url, url.rstrip("/")) for url in dict.fromkeys(given)]
    found = gateways_in(cluster.ceph("service", "dump"))
    if not found:
        raise FlashtuneError(
            "the rgw probes need an S3 gateway, and `ceph service dump` lists no rgw daemon",
            suggestion="start the gateways, give their URLs with --s3-endpoint, or choose other probes with "
            "--probe",
        )
    return found


def check_answering(gateways: list[Gateway], timeout: float = 10) -> None:
    """Every gateway answers HTTP (any status: an anonymous request is refused or lists nothing)."""
    silent: list[str] = []
    for g in gateways:
        try:
            with urllib.request.urlopen(g.url + "/", timeout=timeout):
                pass
        except urllib.error.HTTPError:
            pass  # an HTTP answer: the gateway is there
        except (urllib.error.URLError, OSError) as e:
            silent.append(f"{g.name} ({g.url}): {getattr(e, 'reason', e)}")
    if silent:
        raise FlashtuneError(
            "gateways that do not answer: " + "; ".join(silent),
            suggestion="start them, or give the gateways to drive with --s3-endpoint (each once)",
        )


def create_user(cluster: Cluster, uid: str) -> Credentials:
    """A throwaway S3 user (the caller journals it first); its first S3 key pair."""
    if not uid.startswith(USER_PREFIX):
        raise FlashtuneError(f"refusing to create S3 user {uid!r}: prove names its users {USER_PREFIX}*")
    r = cluster.run(
        "radosgw-admin",
        "user",
        "create",
        "--uid",
        uid,
        "--display-name",
        "flashtune prove (temporary, removed at the end of the run)",
        timeout=120,
    )
    try:
        doc = json.loads(r.stdout)
        key = doc["keys"][0]
        return Credentials(uid, str(key["access_key"]), str(key["secret_key"]))
    except (ValueError, KeyError, IndexError, TypeError):
        raise CephCommandError(
            f"radosgw-admin user create printed no S3 key for {uid}: {r.stdout.strip()[-300:]}"
        ) from None


def user_exists(cluster: Cluster, uid: str) -> bool:
    r = cluster.run("radosgw-admin", "user", "info", "--uid", uid, timeout=120, check=False)
    return r.returncode == 0


def buckets_of_run(cluster: Cluster, prefix: str) -> list[str]:
    """Buckets whose names start with the run's prefix, as radosgw-admin lists every bucket."""
    r = cluster.run("radosgw-admin", "bucket", "list", timeout=120)
    return [str(b) for b in json.loads(r.stdout or "[]") if str(b).startswith(prefix)]


def remove_user(cluster: Cluster, uid: str) -> bool:
    """Remove a run's S3 user with every bucket and object it owns; False when it did not exist."""
    if not uid.startswith(USER_PREFIX):
        raise FlashtuneError(f"refusing to remove S3 user {uid!r}: prove only removes the users it named")
    if not user_exists(cluster, uid):
        return False
    cluster.run("radosgw-admin", "user", "rm", "--uid", uid, "--purge-data", timeout=1800)
    if user_exists(cluster, uid):
        raise CephCommandError(f"radosgw-admin user rm --purge-data left S3 user {uid} in place")
    return True
