"""Resolving: the version in effect on the date, the backing model, lineage (tables and columns), freshness and what is coming."""
