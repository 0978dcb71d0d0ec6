"""Generators for the book's reference pages (knobs, datasets, compiled configs).

Each module turns one kind of project data into MyST Markdown pages under book/_generated/; the pages
are build products (gitignored), rebuilt by scripts/build_book.py before every Jupyter Book run.
"""
