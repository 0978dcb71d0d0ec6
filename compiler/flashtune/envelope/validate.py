"""Predicted vs published: every headline, with constants fitted without the headline's own study."""

from __future__ import annotations

from dataclasses import dataclass

from flashtune.envelope.calibrate import cluster_for, fit
from flashtune.envelope.ceilings import Envelope, envelope
from flashtune.envelope.observations import Headline, fixed_constants, headlines

GOAL = 0.25  # within +-25 % of the measured value
GOAL_SHARE = 0.80  # issue 25: the share of goal headlines that must meet GOAL with the stated bottleneck
# which constants set each resource class's ceiling (a row limited there by an in-study one is circular)
_LIMIT_CONSTANTS = {
    "network": ("net_efficiency", "net_efficiency_write"),
    "cpu": ("cpu.",),
    "osd": ("node_op_ceiling",),
    "media": (),
}


@dataclass(frozen=True)
class Row:
    headline: Headline
    loso: Envelope  # constants fitted without this headline's study
    all_studies: Envelope  # constants fitted from every study (in-sample)
    in_study: tuple[str, ...]  # constants that no other study measures (their value is in-sample)

    @property
    def error(self) -> float:
        """(predicted - measured) / measured, leave-one-study-out."""
        return self.loso.iops / self.headline.iops - 1

    @property
    def error_all(self) -> float:
        return self.all_studies.iops / self.headline.iops - 1

    @property
    def bottleneck_match(self) -> bool | None:
        """Does the predicted bottleneck class include the stated one? None where the source states none."""
        stated = self.headline.stated_bottleneck
        if stated == "none":
            return None
        predicted = self.loso.bottleneck_class.split("/")
        return any(s in predicted for s in stated.split("_"))  # cpu_media: either one

    @property
    def met(self) -> bool:
        return abs(self.error) <= GOAL and self.bottleneck_match is not False

    @property
    def circular(self) -> bool:
        """The predicted limit rests on a constant only the headline's own study gives (in_study): the
        prediction of that resource is not out of study."""
        prefixes = [p for cls in self.loso.bottleneck_class.split("/") for p in _LIMIT_CONSTANTS.get(cls, ())]
        return any(n.startswith(p) for n in self.in_study for p in prefixes)

    def record(self) -> dict[str, object]:
        h = self.headline
        return {
            "headline": h.id,
            "study": h.study,
            "case": h.case.name,
            "evidence": h.evidence,
            "measured_MB_s": round(h.mb_s, 1),
            "measured_IOPS": round(h.iops),
            "predicted_MB_s": round(self.loso.mb_s, 1),
            "predicted_IOPS": round(self.loso.iops),
            "error_pct": round(100 * self.error, 1),
            "error_all_studies_pct": round(100 * self.error_all, 1),
            "bottleneck_predicted": self.loso.bottleneck,
            "bottleneck_predicted_resources": list(self.loso.limit),
            "bottleneck_stated": h.stated_bottleneck,
            "bottleneck_match": self.bottleneck_match,
            "goal_applies": h.goal,
            "goal_met": self.met if h.goal else None,
            "in_study_constants": ", ".join(self.in_study),
            "limit_in_study": self.circular,
            "note": h.why_no_goal or h.why_miss,
            "missing_fact": h.missing or None,
            "source_conflict": h.conflict or None,
        }


def _applies(constant: str, direction: tuple[str, ...], family: str, rgw: bool = False) -> bool:
    """Does a headline of these directions on this cost family (through gateways: rgw) use the constant?"""
    if constant == "net_efficiency":
        return True
    if constant == "net_efficiency_write":
        return "write" in direction
    parts = constant.split(".", 1)[1].split("_")
    if parts[0] == "rgw":
        return rgw and parts[1] in direction
    if parts[0] not in direction:
        return False
    if len(parts) == 3 or parts[1] == "op":
        return parts[-1] == family
    return family in ("filestore", "bluestore")  # the shared per-byte costs of the 2014-2017 studies


def validation() -> list[Row]:
    full = fit()
    rows = []
    fits = {}
    fixed = fixed_constants()
    for h in headlines():
        if not h.listed:
            continue
        if h.study not in fits:
            fits[h.study] = fit(leave_out=h.study)
        f = fits[h.study]
        c = cluster_for(h)
        direction = {1.0: ("read",), 0.0: ("write",)}.get(h.case.read_fraction, ("read", "write"))
        rgw = h.case.interface == "rgw" and c.colocated_gateways > 0
        used = tuple(n for n in f.in_study if _applies(n, direction, c.family, rgw))
        loso = envelope(c, h.case, f.constants)
        # a fixed constant stated by the held-out study itself (the per-node wall, the RGW round trips)
        if "osd node" in loso.limit and fixed["node_op_ceiling"][1] == h.study:
            used += ("node_op_ceiling",)
        if (
            h.case.interface == "rgw"
            and fixed["rgw_put_round_trips"][1] == h.study
            and h.case.read_fraction < 1
        ):
            used += ("rgw_put_round_trips",)
        rows.append(Row(h, loso, envelope(c, h.case, full.constants), used))
    return rows


def table() -> list[dict[str, object]]:
    return [r.record() for r in validation()]


def era(h: Headline) -> str:
    """2014-2017 (the seed documents' studies) or 2018+ (BlueStore-era rows of published_results)."""
    return "2018+" if h.evidence.startswith("published_results/") else "2014-2017"


def summary(rows: list[Row]) -> dict[str, object]:
    """The share of goal headlines met, in all and per era, and how many met ones have their limit set by a
    constant only their own study gives (circular)."""
    goal = [r for r in rows if r.headline.goal]
    out: dict[str, object] = {"goal_share": GOAL_SHARE}
    for name, group in (
        ("all", goal),
        *((e, [r for r in goal if era(r.headline) == e]) for e in ("2014-2017", "2018+")),
    ):
        met = [r for r in group if r.met]
        out[name] = {
            "met": len(met),
            "headlines": len(group),
            "share": len(met) / len(group) if group else 0.0,
            "met_with_limit_in_study": sum(r.circular for r in met),
            "missed_with_source_conflict": sum(bool(r.headline.conflict) for r in group if not r.met),
        }
    return out
