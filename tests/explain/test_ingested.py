"""The sidebar's ingest time is said against the catalog's own clock (issue 38, item 6): a demo read on a fixed
past day, ingested later by the real clock, does not read as a catalog from the future."""
from datetime import datetime, timezone

from core.explain.ingested import ingested_text

CLOCK = datetime(2031, 5, 2, 8, 30, tzinfo=timezone.utc)


def test_an_ingest_after_the_catalogs_clock_says_which_clock_each_is():
    said = ingested_text("2031-06-14T17:05:09+00:00", CLOCK)
    assert said == ("ingested 14 Jun 2031 17:05 UTC by the real clock; on this catalog's own clock "
                    "(2 May 2031 08:30 UTC) its data is as it was then")


def test_before_the_clock_or_without_one():
    assert ingested_text("2031-04-30T06:00:00+00:00", CLOCK) == (
        "ingested 30 Apr 2031 06:00 UTC, before this catalog's own clock (2 May 2031 08:30 UTC)")
    assert ingested_text("2031-04-30T06:00:00", None) == "ingested 30 Apr 2031 06:00 UTC"
    assert ingested_text(None, CLOCK) == "ingest time not recorded"
