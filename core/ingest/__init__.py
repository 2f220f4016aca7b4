"""Ingest: catalog files, dbt artifacts, OpenLineage events and overlays in; one published revision (catalog and index) out."""
