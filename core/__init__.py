"""AsOf core: which definition of a metric applied on a date, for this requester, with evidence.

Flow of one question (ask.py runs it; file names follow it):
  access (the role's view) -> intent / dates -> entities -> resolve -> lineage / freshness
  -> envelope -> render.
Catalogs come in through load (validation) and store (DuckDB).
"""
from core.settings.config import apply_offline_env

apply_offline_env()
