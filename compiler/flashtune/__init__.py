"""flashtune: a knowledge base and config compiler for all-flash Ceph and Lustre-style scratch storage."""

__version__ = "0.1.0"
