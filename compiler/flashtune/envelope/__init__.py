"""Performance envelope: predicted ceilings per resource for a cluster, checked against published results."""

from flashtune.envelope.ceilings import Case, Cluster, Constants, Envelope, envelope

__all__ = ["Case", "Cluster", "Constants", "Envelope", "envelope"]
