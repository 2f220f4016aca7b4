"""The catalog: the evidence model and the envelope every surface reads, the DuckDB store, one role's view of it (authorization) and transaction time (history)."""
