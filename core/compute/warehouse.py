"""The Lumen Outfitters warehouse: a deterministic, seeded generator of the demo's raw sources and the models
built on them, as DuckDB tables (`raw_*` schemas for sources, `staging`, `analytics` and `finance` for models,
named exactly as the demo catalog's `model.relation` and source ids).

The rows are drawn with numpy's PCG64 from one seed, so the same seed and scale give the same warehouse,
byte for byte in every value (tests compare computed metric values with independently written SQL over it).
The data carries the quirks the demo's definitions disagree about: sales tax, shipping and gift-card purchases
inside the amount charged, payment captures that land days after the order (sometimes in the next month, and
split in two), refunds, chargebacks, employee and test accounts, bot and internal web sessions, a sponsorship
booked by an agency, Trail Club subscription renewals.

`build(path)` writes a new file atomically (a temporary file renamed over the target), so a reader never sees
half a warehouse. `scale` multiplies the row counts (the benchmark's 10x warehouse).
"""
from __future__ import annotations

import os
from datetime import date, timedelta
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa

SEED = 21
START = date(2023, 1, 1)
END = date(2026, 11, 30)  # exclusive: the demo's last recorded loads are on 2026-11-29
CUSTOMERS = 12_000
ORDERS = 45_000  # about 100k order lines
SESSION_CONVERSION = 0.06
CHANNELS = ["search", "social", "display", "organic", "referral"]
PAID_CHANNELS = {"search": 420.0, "social": 310.0, "display": 150.0}
SPONSORSHIP_DAILY = 90.0  # brand sponsorships, booked by Kestrel Partners (CAC excludes them)


def _ts(days: np.ndarray) -> np.ndarray:
    """Fractional days since START as numpy datetimes (microseconds)."""
    base = np.datetime64(START.isoformat(), "us")
    return base + (days * 86_400_000_000).astype("int64").astype("timedelta64[us]")


def _tables(seed: int, scale: float) -> dict[str, pa.Table]:
    rng = np.random.Generator(np.random.PCG64(seed))
    span = (END - START).days
    n_cust = int(CUSTOMERS * scale)
    n_orders = int(ORDERS * scale)

    # Customers: sign-ups grow over time; 1.5% employee accounts, 0.5% test accounts.
    cust_id = np.arange(1, n_cust + 1)
    signup = np.sort(span * np.sqrt(rng.random(n_cust)))
    is_employee = rng.random(n_cust) < 0.015
    is_test = (rng.random(n_cust) < 0.005) & ~is_employee
    channel = rng.choice(len(CHANNELS), n_cust, p=[0.32, 0.22, 0.12, 0.22, 0.12])
    customers = pa.table({
        "customer_id": cust_id, "created_at": _ts(signup),
        "email": [f"c{i}@{'lumen-outfitters.com' if e else 'example.com'}" for i, e in zip(cust_id, is_employee)],
        "is_employee": is_employee, "is_test": is_test,
        "acquisition_channel": np.array(CHANNELS)[channel]})

    # Orders: heavy repeaters (gamma weights; employees buy three times as often), never before sign-up.
    weight = rng.gamma(0.6, 1.0, n_cust) * np.where(is_employee, 3.0, 1.0)
    who = rng.choice(n_cust, n_orders, p=weight / weight.sum())
    ordered = signup[who] + (span - signup[who]) * rng.random(n_orders)
    order_ord = np.argsort(ordered, kind="stable")
    who, ordered = who[order_ord], ordered[order_ord]
    order_id = np.arange(100_001, 100_001 + n_orders)
    cancelled = rng.random(n_orders) < 0.03

    # Lines: 1 + Poisson(1.2) per order; 4% of orders also buy a gift card (not merchandise).
    n_lines = 1 + rng.poisson(1.2, n_orders)
    line_order = np.repeat(np.arange(n_orders), n_lines)
    n_line_rows = len(line_order)
    price = np.round(np.exp(rng.normal(3.5, 0.6, n_line_rows)), 2)
    qty = 1 + rng.binomial(2, 0.2, n_line_rows)
    gift = rng.random(n_orders) < 0.04
    gift_value = np.where(gift, rng.choice([25.0, 50.0, 100.0], n_orders), 0.0)
    gift_orders = np.nonzero(gift)[0]
    line_order_all = np.concatenate([line_order, gift_orders])
    lines = pa.table({
        "order_line_id": np.arange(1, len(line_order_all) + 1),
        "order_id": order_id[line_order_all],
        "sku": np.concatenate([np.char.add("SKU-", (rng.integers(1000, 1400, n_line_rows)).astype(str)),
                               np.full(len(gift_orders), "GIFT-CARD")]),
        "item_price_usd": np.concatenate([price, gift_value[gift_orders]]),
        "quantity": np.concatenate([qty, np.ones(len(gift_orders), dtype=int)]),
        "is_gift_card": np.concatenate([np.zeros(n_line_rows, bool), np.ones(len(gift_orders), bool)])})

    merch = np.round(np.bincount(line_order, weights=price * qty, minlength=n_orders), 2)
    discount_rate = np.where(is_employee[who], 0.30, np.where(rng.random(n_orders) < 0.10, 0.15, 0.0))
    discount = np.round(merch * discount_rate, 2)
    tax = np.round((merch - discount) * 0.08, 2)
    shipping = np.where(merch - discount >= 75, 0.0, 6.95)
    charged = np.round(merch - discount + gift_value + tax + shipping, 2)
    refund_at = ordered + 3 + 40 * rng.random(n_orders)
    # A refund after the last load has not happened yet, in the shop's table or the processor's.
    refunded = (~cancelled) & (rng.random(n_orders) < 0.09) & (refund_at < span)
    refund = np.where(refunded, np.round((merch - discount) * rng.choice([0.3, 0.5, 1.0], n_orders), 2), 0.0)
    orders = pa.table({
        "order_id": order_id, "customer_id": cust_id[who], "ordered_at": _ts(ordered),
        "status": np.where(cancelled, "cancelled", "completed"),
        "merchandise_usd": merch, "discount_usd": discount, "gift_card_usd": gift_value, "tax_usd": tax,
        "shipping_usd": shipping, "order_total_usd": charged,  # what the customer was charged, all of it
        "refund_amount_usd": refund, "refunded_at": pa.array(np.where(refunded, _ts(refund_at), None),
                                                              type=pa.timestamp("us"))})

    # Payment events: one capture 0-3 days after the order (2% split in two, the rest 5-20 days later),
    # refunds as recorded by the shop, chargebacks on 0.8% of completed orders 20-60 days later.
    ok = np.nonzero(~cancelled)[0]
    lag = ordered[ok] + 3 * rng.random(len(ok)) ** 2
    split = rng.random(len(ok)) < 0.02
    first_amt = np.where(split, np.round(charged[ok] * 0.6, 2), charged[ok])
    second = ok[split]
    chargeback = ok[rng.random(len(ok)) < 0.008]
    cb_amount = np.round(merch[chargeback] - discount[chargeback] - refund[chargeback], 2)
    rf = np.nonzero(refunded)[0]
    ev_order = np.concatenate([ok, second, rf, chargeback])
    ev_type = (["capture"] * (len(ok) + len(second)) + ["refund"] * len(rf) + ["chargeback"] * len(chargeback))
    ev_amount = np.concatenate([first_amt, np.round(charged[second] - first_amt[split], 2), refund[rf], cb_amount])
    ev_at = np.concatenate([lag, lag[split] + 5 + 15 * rng.random(len(second)), refund_at[rf],
                            ordered[chargeback] + 20 + 40 * rng.random(len(chargeback))])
    keep = ev_at < span  # nothing is recorded after the last load
    payments = pa.table({
        "payment_event_id": np.arange(1, int(keep.sum()) + 1), "order_id": order_id[ev_order[keep]],
        "event_type": np.array(ev_type)[keep], "amount_usd": ev_amount[keep], "occurred_at": _ts(ev_at[keep])})

    # Trail Club: 20% of customers subscribe some time after sign-up and renew every 90 days until they stop.
    subs = np.nonzero(rng.random(n_cust) < 0.20)[0]
    renew_c, renew_t = [], []
    for c in subs:
        t = signup[c] + 60 * rng.random()
        stop = t + 90 * (1 + rng.geometric(0.25))
        while t < min(stop, span):
            renew_c.append(cust_id[c])
            renew_t.append(t)
            t += 90
    renewals = pa.table({"customer_id": np.array(renew_c, dtype=np.int64),
                         "renewed_at": _ts(np.array(renew_t, dtype=float))})

    # Web sessions: one per completed order, plus browsing sessions; 10% bots, 2% from the office network.
    n_sessions = int(n_orders / SESSION_CONVERSION)
    n_browse = n_sessions - len(ok)
    s_at = np.concatenate([ordered[ok] - rng.random(len(ok)) / 48, span * np.sqrt(rng.random(n_browse))])
    s_at = np.clip(s_at, 0, span - 1e-6)
    s_order = np.concatenate([order_id[ok], np.zeros(n_browse, dtype=np.int64)])
    s_bot = np.concatenate([np.zeros(len(ok), bool), rng.random(n_browse) < 0.10])
    s_internal = (rng.random(n_sessions) < 0.02) & ~s_bot
    sessions = pa.table({
        "session_id": np.arange(1, n_sessions + 1), "started_at": _ts(s_at),
        "order_id": pa.array(np.where(s_order > 0, s_order, None), type=pa.int64()),
        "user_agent_class": np.where(s_bot, "bot", "browser"),
        "ip_class": np.where(s_internal, "internal", "external")})

    # Ad spend per channel and day (2024 on), and the agency-booked sponsorship.
    days = np.arange((date(2024, 1, 1) - START).days, span)
    spend_rows = []
    for name, base in PAID_CHANNELS.items():
        spend_rows.append((np.full(len(days), name), days,
                           np.round(base * scale * (0.7 + 0.6 * rng.random(len(days))), 2),
                           np.full(len(days), "in-house")))
    spend_rows.append((np.full(len(days), "sponsorship"), days,
                       np.round(np.full(len(days), SPONSORSHIP_DAILY * scale), 2), np.full(len(days), "Kestrel Partners")))
    spend = pa.table({
        "channel": np.concatenate([r[0] for r in spend_rows]),
        "spend_date": _ts(np.concatenate([r[1] for r in spend_rows]).astype(float)).astype("datetime64[D]"),
        "spend_usd": np.concatenate([r[2] for r in spend_rows]),
        "booked_by": np.concatenate([r[3] for r in spend_rows])})

    # Finance ledger: cost of goods, fulfilment and payment fees per completed order.
    cogs = pa.table({
        "order_id": order_id[ok], "cogs_usd": np.round((merch[ok] - discount[ok]) * rng.uniform(0.38, 0.52, len(ok)), 2),
        "fulfilment_cost_usd": np.round(4.5 + 0.03 * merch[ok], 2),
        "payment_fees_usd": np.round(0.029 * charged[ok] + 0.30, 2)})
    return {"raw_crm.customers": customers, "raw_crm.subscription_renewals": renewals, "raw_shop.orders": orders,
            "raw_shop.order_lines": lines, "raw_payments.payment_events": payments, "raw_web.sessions": sessions,
            "raw_ads.spend": spend, "raw_finance.cogs": cogs}


# The models, as their dbt SQL would build them. Amounts in fct_* exclude sales tax, shipping and gift-card
# purchases (every definition excludes them); the raw tables keep them, which is the quirk.
MODELS = """
CREATE SCHEMA staging; CREATE SCHEMA analytics; CREATE SCHEMA finance;
CREATE TABLE staging.stg_orders AS
  SELECT o.order_id, o.customer_id, o.ordered_at, o.status,
         round(o.merchandise_usd - o.discount_usd, 2) AS order_total_usd,
         o.refund_amount_usd, o.refunded_at, o.merchandise_usd AS gross_merchandise_usd,
         o.gift_card_usd, o.tax_usd, o.shipping_usd, o.order_total_usd AS charged_usd,
         l.quantity
  FROM raw_shop.orders o
  JOIN (SELECT order_id, sum(quantity) FILTER (WHERE NOT is_gift_card) AS quantity
        FROM raw_shop.order_lines GROUP BY order_id) l USING (order_id);
CREATE TABLE staging.stg_payment_events AS
  SELECT payment_event_id, order_id, event_type, amount_usd, occurred_at AS captured_at
  FROM raw_payments.payment_events;
CREATE TABLE staging.stg_customers AS
  SELECT customer_id, created_at, is_employee, is_test, acquisition_channel FROM raw_crm.customers;
CREATE TABLE staging.stg_sessions AS
  SELECT session_id, started_at AS session_started_at, order_id, ip_class FROM raw_web.sessions
  WHERE user_agent_class <> 'bot';
CREATE TABLE analytics.fct_orders_v1 AS
  SELECT order_id, customer_id, ordered_at, status, order_total_usd, refund_amount_usd, gross_merchandise_usd,
         quantity
  FROM staging.stg_orders;
CREATE TABLE analytics.fct_orders_v2 AS
  WITH p AS (
    SELECT order_id,
           min(captured_at) FILTER (WHERE event_type = 'capture') AS captured_at,
           coalesce(sum(amount_usd) FILTER (WHERE event_type = 'capture'), 0) AS captured_usd,
           coalesce(sum(amount_usd) FILTER (WHERE event_type = 'refund'), 0) AS refund_amount_usd,
           coalesce(sum(amount_usd) FILTER (WHERE event_type = 'chargeback'), 0) AS chargeback_amount_usd
    FROM staging.stg_payment_events GROUP BY order_id)
  SELECT o.order_id, o.customer_id, o.ordered_at, o.status, p.captured_at, o.order_total_usd,
         -- the share of what was captured that is merchandise (tax, shipping and gift cards taken out)
         round(coalesce(p.captured_usd, 0) * o.order_total_usd / nullif(o.charged_usd, 0), 2) AS captured_payment_usd,
         coalesce(p.refund_amount_usd, 0) AS refund_amount_usd,
         coalesce(p.chargeback_amount_usd, 0) AS chargeback_amount_usd,
         o.gross_merchandise_usd, o.quantity
  FROM staging.stg_orders o LEFT JOIN p USING (order_id);
CREATE TABLE analytics.fct_sessions AS
  SELECT s.session_id, s.session_started_at, s.ip_class = 'internal' AS is_internal,
         s.order_id IS NOT NULL AND o.status = 'completed' AS has_order
  FROM staging.stg_sessions s LEFT JOIN staging.stg_orders o USING (order_id);
CREATE TABLE analytics.fct_marketing_spend AS
  WITH firsts AS (
    SELECT c.acquisition_channel AS channel, CAST(min(o.ordered_at) AS DATE) AS spend_date, o.customer_id
    FROM staging.stg_orders o JOIN staging.stg_customers c USING (customer_id)
    WHERE o.status = 'completed' GROUP BY 1, 3),
  new_customers AS (SELECT channel, spend_date, count(*) AS first_order_customers FROM firsts GROUP BY 1, 2),
  spend AS (SELECT channel, CAST(spend_date AS DATE) AS spend_date, booked_by, sum(spend_usd) AS paid_media_spend_usd
            FROM raw_ads.spend GROUP BY 1, 2, 3)
  SELECT coalesce(s.channel, n.channel) AS channel, coalesce(s.spend_date, n.spend_date) AS spend_date,
         coalesce(s.booked_by, 'in-house') AS booked_by, coalesce(s.paid_media_spend_usd, 0) AS paid_media_spend_usd,
         coalesce(n.first_order_customers, 0) AS first_order_customers
  FROM spend s FULL JOIN new_customers n ON s.channel = n.channel AND s.spend_date = n.spend_date;
CREATE TABLE finance.fct_order_costs AS
  SELECT o.order_id, o.ordered_at, o.status, round(o.order_total_usd - o.refund_amount_usd, 2) AS net_revenue_usd,
         c.cogs_usd, c.fulfilment_cost_usd, c.payment_fees_usd
  FROM staging.stg_orders o JOIN raw_finance.cogs c USING (order_id);
"""

# Month-end customer snapshots. Counts look back (and, for churn, ahead) from the snapshot day.
SNAPSHOTS = """
CREATE TABLE analytics.dim_customers_v1 AS
  WITH days AS (SELECT CAST(unnest([{days}]) AS DATE) AS snapshot_date),
  done AS (SELECT customer_id, CAST(ordered_at AS DATE) AS day, order_total_usd > 0 AS paid
           FROM staging.stg_orders WHERE status = 'completed'),
  base AS (SELECT c.customer_id, d.snapshot_date FROM staging.stg_customers c
           JOIN days d ON CAST(c.created_at AS DATE) <= d.snapshot_date),
  counts AS (
    SELECT b.customer_id, b.snapshot_date,
      count(*) FILTER (WHERE o.day > b.snapshot_date - 90 AND o.day <= b.snapshot_date) AS orders_last_90_days,
      count(*) FILTER (WHERE o.day > b.snapshot_date - 180 AND o.day <= b.snapshot_date) AS orders_last_180_days,
      count(*) FILTER (WHERE o.day > b.snapshot_date - 365 AND o.day <= b.snapshot_date) AS orders_last_365_days,
      count(*) FILTER (WHERE o.paid AND o.day > b.snapshot_date - 60 AND o.day <= b.snapshot_date) AS paid_orders_last_60_days,
      count(*) FILTER (WHERE o.day > b.snapshot_date AND o.day <= b.snapshot_date + 120) AS orders_next_120_days,
      count(*) FILTER (WHERE o.day > b.snapshot_date AND o.day <= b.snapshot_date + 180) AS orders_next_180_days
    FROM base b LEFT JOIN done o ON o.customer_id = b.customer_id
      AND o.day > b.snapshot_date - 365 AND o.day <= b.snapshot_date + 180
    GROUP BY 1, 2),
  subs AS (
    SELECT b.customer_id, b.snapshot_date, count(r.renewed_at) > 0 AS renewed
    FROM base b LEFT JOIN raw_crm.subscription_renewals r ON r.customer_id = b.customer_id
      AND CAST(r.renewed_at AS DATE) > b.snapshot_date - 90 AND CAST(r.renewed_at AS DATE) <= b.snapshot_date
    GROUP BY 1, 2)
  SELECT c.customer_id, c.snapshot_date, c.orders_last_90_days, c.orders_last_180_days, c.orders_last_365_days,
         s.renewed AS renewed_subscription_last_90_days, s.renewed AS has_open_subscription,
         c.orders_next_120_days, c.orders_next_180_days, c.paid_orders_last_60_days
  FROM counts c JOIN subs s USING (customer_id, snapshot_date);
CREATE TABLE analytics.dim_customers_v2 AS
  SELECT d.*, c.is_employee, c.is_test FROM analytics.dim_customers_v1 d JOIN staging.stg_customers c USING (customer_id);
ALTER TABLE analytics.dim_customers_v1 DROP COLUMN paid_orders_last_60_days;
"""


def build(path: str | Path, seed: int = SEED, scale: float = 1.0) -> Path:
    """Write the warehouse to `path` (replacing it atomically) and return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    con = duckdb.connect(str(tmp))
    try:
        con.execute("SET threads TO 2")
        for name, table in _tables(seed, scale).items():
            schema, rel = name.split(".")
            con.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
            con.register("_t", table)
            con.execute(f"CREATE TABLE {schema}.{rel} AS SELECT * FROM _t")
            con.unregister("_t")
        con.execute(MODELS)
        con.execute(SNAPSHOTS.format(days=", ".join(f"'{d}'" for d in snapshot_days())))
        con.execute("CHECKPOINT")
    finally:
        con.close()
    os.replace(tmp, path)
    return path


def snapshot_days() -> list[date]:
    """The month-end days dim_customers holds a snapshot for: from the day before the data starts (so the first
    period has a start snapshot) to the end of the last month with data."""
    out, d = [], date(START.year, START.month, 1)
    while True:
        out.append(d - timedelta(days=1))
        if d > END:
            return out
        d = date(d.year + (d.month == 12), d.month % 12 + 1, 1)
