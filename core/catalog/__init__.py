"""The catalog: the evidence model, the envelope every surface reads, words and dates, settings and identity, the DuckDB store, one role's view of it (authorization), history and the audit log."""
