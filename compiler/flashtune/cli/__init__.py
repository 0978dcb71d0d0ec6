"""Command-line entry points. They import only the compiler stack (no pandas/altair/jupyter)."""
