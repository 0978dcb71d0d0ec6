"""compile: tier x workload x release -> Settings -> files (pure functions, no I/O but reading data/)."""

from flashtune.compile.pipeline import Bundle, CompileRequest, compile_bundle

__all__ = ["Bundle", "CompileRequest", "compile_bundle"]
