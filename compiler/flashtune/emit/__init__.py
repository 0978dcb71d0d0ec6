"""Emitters: one module per output format, each a pure function from Settings to text."""
