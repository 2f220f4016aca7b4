"""When the catalog was ingested, said beside the clock its data is read against. A demo catalog reads on its own
clock (settings.evaluation_time, a fixed day); its ingest happened on the real one, usually days later, and a bare
timestamp past the clock reads as a catalog from the future. Pure."""
from __future__ import annotations

from datetime import datetime, timezone


def _when(at: datetime) -> str:
    return f"{at.day} {at:%b %Y} {at:%H:%M} UTC"


def ingested_text(ingested_at: str | datetime | None, clock: datetime | None) -> str:
    """'ingested 4 Dec 2026 14:57 UTC', and with a catalog clock, where that stands against it."""
    if not ingested_at:
        return "ingest time not recorded"
    at = datetime.fromisoformat(ingested_at) if isinstance(ingested_at, str) else ingested_at
    at = (at if at.tzinfo else at.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)
    said = f"ingested {_when(at)}"
    if clock is None:
        return said
    if at > clock:
        return (f"{said} by the real clock; on this catalog's own clock ({_when(clock)}) its data is "
                "as it was then")
    return f"{said}, before this catalog's own clock ({_when(clock)})"
