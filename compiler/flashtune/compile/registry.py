"""Every derivation a profile may name (`{derive: NAME}`): the cluster's (flashtune.compile.derive) and the
hosts' around it (flashtune.compile.derive_host: kernel reserve, my.cnf). Joined here so neither module
imports the other's registry."""

from __future__ import annotations

from collections.abc import Callable

from flashtune.compile import derive, derive_host
from flashtune.model import Derived, Shape

REGISTRY: dict[str, Callable[[Shape], Derived]] = {**derive.REGISTRY, **derive_host.REGISTRY}
