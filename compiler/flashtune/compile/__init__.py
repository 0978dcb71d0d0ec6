"""compile: tier x workload x release -> Settings -> files (pure functions, no I/O but reading data/)."""

from flashtune.compile.pipeline import compile_bundle
from flashtune.model import Bundle, CompileRequest

__all__ = ["Bundle", "CompileRequest", "compile_bundle"]
