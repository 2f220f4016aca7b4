"""AsOf core: which definition of a metric applied on a date, for this requester, with evidence.

Flow of one question (file names follow it): access (store.visible_evidence) -> intent / dates
-> entities -> resolve -> lineage / freshness -> envelope -> render.
"""
from .config import apply_offline_env

apply_offline_env()
