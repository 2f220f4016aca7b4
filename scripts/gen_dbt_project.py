"""Write a dbt project of 1,000+ models shaped the way real ones grow, for AsOf's tests and benchmarks.

Deterministic (no randomness): the same command always writes the same project. What it holds, per the dbt
issue: raw sources per business domain; staging models (one per source table, and in `sales` a model named
exactly like its source table, `orders`); intermediate models joining staging ones; marts (facts and
dimensions) owned through groups with owners, `meta.owner` and `config.meta.owner`; a date spine and a
MetricFlow time spine with no parents (generated in SQL, not raw sources); disabled models; a versioned
model with a deprecation date; doc blocks used by descriptions; exposures with owners, maturity and url;
semantic models over several facts, and simple, ratio and derived metrics whose inputs span them.

`write_target(spec, folder)` writes a small target/ straight from a spec (the tests' own projects): models and
sources with tags, meta, materialization, access, group, enforced contracts, disabled models (`enabled: false`),
generic and singular tests, and, when the spec records a run (`run:` on a model, `status:` on a test), a
run_results.json with each status (pass, fail, warn, error, skipped), time and failing rows.
`decorate_manifest(manifest)` turns a parsed project into one a team has run: tags, meta, materializations,
contracts, disabled models, tests and run_results with failures (benchmarks/dbt_ingest.py's acme-analytics-run).

    python scripts/gen_dbt_project.py /tmp/bigdbt                 # writes the project
    python scripts/gen_dbt_project.py --spec spec.yaml /tmp/small # a small target from a spec (write_target)
    python scripts/gen_dbt_project.py /tmp/bigdbt --long-text     # descriptions as long as real projects' ones
    bash scripts/make_dbt_fixture.sh                              # writes it, runs `dbt parse`, copies artifacts

The artifacts in tests/fixtures/generated/acme-analytics come from scripts/make_dbt_fixture.sh.
"""
from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import yaml

PROJECT = "acme_analytics"
# (domain, owning team, owner email, raw tables)
DOMAINS = [
    ("sales", "Sales Analytics", "sales-analytics@acme.test",
     ["orders", "order_lines", "quotes", "discounts", "returns", "channels", "regions", "reps", "territories",
      "targets", "opportunities", "leads", "accounts", "contracts", "renewals", "price_books", "products",
      "product_families", "promotions", "carts", "checkouts", "shipments", "gift_cards", "coupons", "tax_lines",
      "currency_rates", "store_visits", "pos_transactions"]),
    ("finance", "Finance Data", "finance-data@acme.test",
     ["invoices", "invoice_lines", "payments", "refunds", "ledger_entries", "accounts_payable",
      "accounts_receivable", "budgets", "forecasts", "cost_centers", "gl_accounts", "journals", "fx_rates",
      "tax_filings", "expenses", "expense_reports", "vendors", "purchase_orders", "credit_notes", "chargebacks",
      "write_offs", "accruals", "deferred_revenue", "cash_positions", "bank_statements", "payroll_runs",
      "capex", "depreciation"]),
    ("marketing", "Growth Marketing", "growth@acme.test",
     ["campaigns", "ad_spend", "impressions", "clicks", "email_sends", "email_opens", "email_clicks",
      "web_sessions", "page_views", "signups", "attribution_touches", "utm_params", "landing_pages",
      "referrals", "affiliates", "social_posts", "social_engagements", "webinars", "webinar_attendees",
      "surveys", "survey_responses", "nps_scores", "content_assets", "seo_rankings", "search_terms",
      "audiences", "segments", "ab_tests"]),
    ("product", "Product Analytics", "product-analytics@acme.test",
     ["events", "feature_flags", "experiments", "experiment_assignments", "app_installs", "app_sessions",
      "screens", "crashes", "releases", "subscriptions", "plans", "plan_changes", "trials", "seats",
      "workspaces", "users", "user_roles", "invitations", "integrations", "api_calls", "api_keys",
      "notifications", "search_queries", "bookmarks", "comments", "uploads", "exports", "onboarding_steps"]),
    ("support", "Customer Support Ops", "support-ops@acme.test",
     ["tickets", "ticket_comments", "ticket_tags", "agents", "agent_shifts", "sla_policies", "escalations",
      "csat_responses", "chat_sessions", "chat_messages", "calls", "call_recordings", "knowledge_articles",
      "article_views", "macros", "queues", "priorities", "ticket_fields", "satisfaction_surveys", "refund_requests",
      "bug_reports", "feature_requests", "status_incidents", "incident_updates", "customer_health",
      "churn_signals", "success_plans", "qbr_meetings"]),
    ("operations", "Operations Analytics", "ops-analytics@acme.test",
     ["warehouses", "inventory_levels", "stock_movements", "suppliers", "supplier_orders", "receipts",
      "pick_lists", "pack_lists", "carriers", "carrier_rates", "deliveries", "delivery_exceptions",
      "returns_processing", "quality_checks", "work_orders", "machines", "machine_downtime", "shifts",
      "employees", "timesheets", "locations", "routes", "fleet_vehicles", "fuel_logs", "maintenance_logs",
      "safety_incidents", "energy_usage", "waste_logs"]),
    ("people", "People Analytics", "people-analytics@acme.test",
     ["workers", "positions", "departments", "hires", "terminations", "promotions_hr", "compensation",
      "bonuses", "equity_grants", "reviews", "goals", "trainings", "training_completions", "benefits",
      "benefit_enrollments", "leave_requests", "absences", "candidates", "applications", "interviews",
      "offers", "requisitions", "engagement_surveys", "engagement_answers", "org_changes", "managers",
      "headcount_plans", "contractors"]),
    ("risk", "Risk and Compliance", "risk@acme.test",
     ["fraud_alerts", "fraud_cases", "kyc_checks", "aml_screenings", "sanctions_hits", "disputes",
      "risk_scores", "device_fingerprints", "login_attempts", "password_resets", "mfa_events", "audit_logs",
      "policy_acceptances", "data_requests", "consent_records", "retention_holds", "vendor_assessments",
      "control_tests", "control_failures", "findings", "remediations", "regulatory_reports", "breach_reports",
      "access_reviews", "privileged_sessions", "token_grants", "ip_blocks", "chargeback_alerts"]),
]
INTERMEDIATE_PER_DOMAIN = 30
MARTS_PER_DOMAIN = 70
MART_SUFFIXES = ["", "_daily", "_monthly"]  # one per pass over the domain's tables


def _dump(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False, width=120))


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.strip() + "\n")


# Long-text mode: real dbt projects describe models in 500-1,200 characters (two public projects measured in
# issue 24) and their columns in a sentence each. The prose is assembled from sentences of the kinds real
# descriptions hold (what a row is, where it comes from, rules, caveats, cadence, who uses it), chosen by a
# hash of the model's name, so the same project is written every time.
LONG_SENTENCES = [
    "Each row represents one {thing} as recorded by the {domain} team, after deduplication on the natural key.",
    "Records are loaded from the upstream {domain} system every night and reconciled against the previous load.",
    "Rows that fail validation are kept with a flag rather than dropped, so downstream counts can be audited.",
    "Amounts are converted to US dollars at the daily rate of the transaction date, not the load date.",
    "Soft-deleted records in the source are excluded unless they were deleted after the end of the reporting period.",
    "Timestamps are stored in UTC; reports that need local time should join the locations dimension.",
    "This model replaced an older spreadsheet export in 2023, and a few historical rows were backfilled by hand.",
    "Test accounts, internal users and sandbox workspaces are filtered out using the shared exclusion list.",
    "Late-arriving updates can change a row for up to seven days, so incremental runs reprocess a trailing window.",
    "The {domain} analytics team owns the logic; questions about definitions go to their channel first.",
    "Use this table for trend reporting and dashboards; for finance close numbers use the audited marts instead.",
    "Null values in optional attributes mean the source did not capture them, not that the value was zero.",
    "Identifiers are hashed where they contain personal data, following the data protection policy.",
    "Grain changed from weekly to daily in the second quarter of 2024; earlier periods are spread evenly.",
    "Joins to the customer dimension use the surrogate key, because natural keys were reused after migrations.",
    "Rows are partitioned by month of the event date, which keeps scans cheap for the usual one-quarter queries.",
]
COLUMN_NOTES = ["Surrogate key of the row.", "Natural identifier from the source system.",
                "Timestamp of the last change in the source, in UTC.", "Amount in US dollars after conversion.",
                "Status as reported by the source, lower-cased.", "Foreign key to the owning customer.",
                "Date the record became effective for reporting.", "Flag set when validation failed for this row."]
LONG_COLUMNS = ["id", "source_id", "updated_at", "amount_usd", "status", "customer_id", "effective_date", "is_flagged"]


def _pick(name: str, salt: str, n: int) -> int:
    return int(hashlib.sha256(f"{name}|{salt}".encode()).hexdigest()[:8], 16) % n


def long_description(name: str, domain: str, short: str = "") -> str:
    """A 500-1,200 character description for a model or source, deterministic per name."""
    thing = name.split("__", 1)[-1].replace("_", " ").rstrip("s") or name
    target = 500 + _pick(name, "len", 700)
    text, i = short.strip(), _pick(name, "start", len(LONG_SENTENCES))
    while len(text) < target:
        text = f"{text} {LONG_SENTENCES[i % len(LONG_SENTENCES)].format(thing=thing, domain=domain)}".strip()
        i += 1 + _pick(name, str(i), 3)
    return text


def long_columns(name: str) -> list[dict]:
    """Eight described columns, as real marts and staging models carry."""
    return [{"name": col, "description": note} for col, note in zip(LONG_COLUMNS, COLUMN_NOTES)]


def lengthen_manifest(manifest: dict) -> dict:
    """The same project with long-text descriptions (models, seeds, snapshots and sources) and eight described
    columns per model, written into a parsed manifest: the long-text project without running `dbt parse`."""
    for uid, node in {**(manifest.get("nodes") or {}), **(manifest.get("sources") or {})}.items():
        if node.get("resource_type") not in ("model", "seed", "snapshot", "source"):
            continue
        domain = (node.get("fqn") or ["", "", "data"])[-2] if node.get("resource_type") != "source" else \
            node.get("source_name", "data")
        node["description"] = long_description(node.get("name", uid), str(domain), node.get("description") or "")
        if node.get("resource_type") == "model":
            cols = dict(node.get("columns") or {})
            for col in long_columns(node.get("name", uid)):
                cols.setdefault(col["name"], {"name": col["name"], "description": col["description"],
                                              "meta": {}, "data_type": None, "tags": []})
            node["columns"] = cols
    return manifest


def staging_name(domain: str, table: str) -> str:
    # The sales orders feed is staged as a model named like its source table, as many projects do.
    return "orders" if (domain, table) == ("sales", "orders") else f"stg_{domain}__{table}"


def generate(out: Path) -> dict[str, int]:
    out.mkdir(parents=True, exist_ok=True)
    _write(out / "dbt_project.yml", f"""
name: {PROJECT}
version: "1.0.0"
config-version: 2
profile: {PROJECT}
model-paths: ["models"]
flags:
  require_explicit_package_overrides_for_builtin_materializations: false
models:
  {PROJECT}:
    staging:
      +materialized: view
    intermediate:
      +materialized: ephemeral
    marts:
      +materialized: table
""")
    _write(out / "profiles.yml", f"""
{PROJECT}:
  target: dev
  outputs:
    dev:
      type: duckdb
      path: acme.duckdb
""")
    counts = {"models": 0, "sources": 0, "disabled": 0, "exposures": 0}
    groups = [{"name": d, "owner": {"name": team, "email": email}} for d, team, email, _ in DOMAINS]
    _dump(out / "models" / "groups.yml", {"version": 2, "groups": groups})
    docs = ["""{% docs net_revenue_definition %}
Net revenue is the sum of order line amounts after discounts and returns. Excludes tax and shipping.
One row per order line; dates come from the order date.
{% enddocs %}""", """{% docs invoice_status %}
Status of an invoice: draft, open, paid, void or uncollectible, as reported by the billing system.
{% enddocs %}""", """{% docs active_user %}
A user is active on a day when they performed at least one tracked product event that day.
{% enddocs %}"""]
    _write(out / "models" / "docs.md", "\n\n".join(docs))

    # Generated in SQL, no parents: a date spine and MetricFlow's time spine.
    _write(out / "models" / "utilities" / "util_date_spine.sql",
           "select cast(range as date) as date_day from range(date '2018-01-01', date '2030-01-01', interval 1 day)")
    _write(out / "models" / "utilities" / "metricflow_time_spine.sql",
           "select date_day from {{ ref('util_date_spine') }}")
    _dump(out / "models" / "utilities" / "utilities.yml", {"version": 2, "models": [
        {"name": "util_date_spine", "description": "One row per calendar day from 2018 to 2029, generated in SQL."},
        {"name": "metricflow_time_spine", "description": "MetricFlow's daily time spine.",
         "time_spine": {"standard_granularity_column": "date_day"},
         "columns": [{"name": "date_day", "granularity": "day"}]}]})
    counts["models"] += 2

    for domain, team, email, tables in DOMAINS:
        src_name = f"raw_{domain}"
        source_tables = []
        for t_i, table in enumerate(tables):
            spec = {"name": table, "description": f"Raw {table.replace('_', ' ')} rows as loaded from the "
                                                  f"{domain} system.",
                    "columns": [{"name": "id"}, {"name": "updated_at"}]}
            if t_i % 3 == 0:
                spec["loaded_at_field"] = "_loaded_at"
                spec["freshness"] = {"warn_after": {"count": 12 + t_i, "period": "hour"},
                                     "error_after": {"count": 48 + t_i, "period": "hour"}}
            source_tables.append(spec)
        _dump(out / "models" / "staging" / domain / f"_{domain}__sources.yml", {"version": 2, "sources": [
            {"name": src_name, "description": f"Loads from the {domain} system.", "schema": src_name,
             "tables": source_tables}]})
        counts["sources"] += len(tables)

        stg_specs = []
        for table in tables:
            name = staging_name(domain, table)
            _write(out / "models" / "staging" / domain / f"{name}.sql",
                   f"select id, updated_at, '{table}' as entity from {{{{ source('{src_name}', '{table}') }}}}")
            spec = {"name": name, "description": f"Staged {table.replace('_', ' ')}: renamed and typed, one row "
                                                 f"per {table.rstrip('s').replace('_', ' ')}."}
            if name == "orders":
                spec["description"] = "{{ doc('net_revenue_definition') }}"
            stg_specs.append(spec)
        counts["models"] += len(tables)
        # A staged feed the team turned off but never deleted.
        _write(out / "models" / "staging" / domain / f"stg_{domain}__legacy_export.sql",
               f"{{{{ config(enabled=false) }}}}\nselect * from {{{{ source('{src_name}', '{tables[0]}') }}}}")
        counts["disabled"] += 1
        _dump(out / "models" / "staging" / domain / f"_{domain}__models.yml", {"version": 2, "models": stg_specs})

        ints = []
        for i in range(INTERMEDIATE_PER_DOMAIN):
            a, b = tables[i % len(tables)], tables[(i * 7 + 3 + i // len(tables)) % len(tables)]
            name = f"int_{domain}__{a}_joined_{b}"
            ints.append(name)
            _write(out / "models" / "intermediate" / domain / f"{name}.sql",
                   f"select x.id, x.updated_at from {{{{ ref('{staging_name(domain, a)}') }}}} x\n"
                   f"join {{{{ ref('{staging_name(domain, b)}') }}}} y using (id)")
        counts["models"] += len(ints)
        _dump(out / "models" / "intermediate" / domain / f"_{domain}__intermediate.yml", {"version": 2, "models": [
            {"name": n, "description": f"Joins {n.split('__', 1)[1].replace('_joined_', ' with ').replace('_', ' ')}."}
            for n in ints]})

        marts = []
        for i in range(MARTS_PER_DOMAIN):
            base = tables[(i * 5 + 1) % len(tables)]
            kind = "fct" if i % 2 == 0 else "dim"
            name = f"{kind}_{domain}__{base}{MART_SUFFIXES[i // len(tables)]}"
            if name in marts:
                continue
            marts.append(name)
            parents = [ints[i % len(ints)], ints[(i + 5) % len(ints)]]
            if i % 4 == 0:
                parents.append(staging_name(domain, base))
            if i % 10 == 0:
                parents.append("util_date_spine")
            sql = " union all ".join(f"select id, updated_at from {{{{ ref('{p}') }}}}" for p in parents)
            _write(out / "models" / "marts" / domain / f"{name}.sql", sql)
        mart_specs = []
        for i, name in enumerate(marts):
            spec = {"name": name, "description": f"{'Facts' if name.startswith('fct') else 'Dimension'} of "
                                                 f"{name.split('__', 1)[1].replace('_', ' ')} for {domain}.",
                    "columns": [{"name": "id", "description": "Primary key."},
                                {"name": "updated_at", "description": "Last change in the source system."}]}
            if i % 3 == 0:
                spec["group"] = domain
                spec["access"] = "public" if i % 2 == 0 else "protected"
            elif i % 3 == 1:
                spec["config"] = {"meta": {"owner": f"{team} ({email})"}}
            elif i % 6 == 2:
                spec["meta"] = {"owner": f"{domain}-oncall@acme.test"}
            mart_specs.append(spec)
        counts["models"] += len(marts)
        _dump(out / "models" / "marts" / domain / f"_{domain}__marts.yml", {"version": 2, "models": mart_specs})

    _semantic_layer(out, counts)
    _exposures(out, counts)
    return counts


def _semantic_layer(out: Path, counts: dict[str, int]) -> None:
    """Facts with measures for MetricFlow, a versioned customer dimension, and metrics over them."""
    facts = {
        "fct_order_lines": ("sales", "order_line", "ordered_at",
                            [("gross_amount", "sum", "amount"), ("discount_amount", "sum", "discount"),
                             ("order_line_count", "count", "order_line_id"),
                             ("food_amount", "sum", "case when is_food then amount else 0 end")]),
        "fct_invoices": ("finance", "invoice", "invoiced_at",
                         [("invoiced_amount", "sum", "amount"), ("invoice_count", "count", "invoice_id"),
                          ("tax_amount", "sum", "tax")]),
        "fct_refunds": ("finance", "refund", "refunded_at",
                        [("refunded_amount", "sum", "amount"), ("refund_count", "count", "refund_id")]),
        "fct_ad_spend": ("marketing", "ad_spend_row", "spent_at",
                         [("ad_spend_amount", "sum", "amount"), ("click_count", "sum", "clicks")]),
        "fct_signups": ("marketing", "signup", "signed_up_at",
                        [("signup_count", "count", "signup_id")]),
        "fct_subscriptions": ("product", "subscription", "started_at",
                              [("mrr_amount", "sum", "mrr"), ("subscription_count", "count", "subscription_id"),
                               ("churned_subscriptions", "sum", "case when churned then 1 else 0 end")]),
    }
    sm_specs, model_specs = [], []
    for name, (domain, entity, time_col, measures) in facts.items():
        cols = sorted({f"{entity}_id", time_col, "customer_id", "amount", "discount", "tax", "clicks", "mrr",
                       "is_food", "churned"})
        parents = [f"int_{domain}__{DOMAINS[[d[0] for d in DOMAINS].index(domain)][3][0]}_joined_"
                   f"{DOMAINS[[d[0] for d in DOMAINS].index(domain)][3][3]}"]
        _write(out / "models" / "marts" / "semantic" / f"{name}.sql",
               "select " + ", ".join(f"null as {c}" for c in cols) + f" from {{{{ ref('{parents[0]}') }}}}")
        model_specs.append({"name": name, "description": f"One row per {entity.replace('_', ' ')}.",
                            "group": domain, "access": "public",
                            "columns": [{"name": c} for c in cols]})
        sm_specs.append({
            "name": name.removeprefix("fct_"), "model": f"ref('{name}')",
            "description": f"{entity.replace('_', ' ').capitalize()}s for MetricFlow.",
            "defaults": {"agg_time_dimension": time_col},
            "entities": [{"name": entity, "type": "primary", "expr": f"{entity}_id"},
                         {"name": "customer", "type": "foreign", "expr": "customer_id"}],
            "dimensions": [{"name": time_col, "type": "time", "type_params": {"time_granularity": "day"}}],
            "measures": [{"name": m, "agg": agg, "expr": expr} for m, agg, expr in measures]})
    counts["models"] += len(facts)
    # A versioned dimension: v1 deprecated, v2 latest, v3 pre-release.
    for v in (1, 2, 3):
        _write(out / "models" / "marts" / "semantic" / f"dim_customers_v{v}.sql",
               "select id as customer_id, updated_at" + (", segment" if v > 1 else "")
               + (", lifetime_value" if v > 2 else "") + " from {{ ref('stg_sales__accounts') }}")
    model_specs.append({
        "name": "dim_customers", "description": "One row per customer.", "latest_version": 2,
        "group": "sales", "access": "public",
        "columns": [{"name": "customer_id"}, {"name": "updated_at"}, {"name": "segment"}, {"name": "lifetime_value"}],
        "versions": [{"v": 1, "deprecation_date": "2025-06-30", "columns": [{"include": "all", "exclude": ["segment", "lifetime_value"]}]},
                     {"v": 2, "columns": [{"include": "all", "exclude": ["lifetime_value"]}]},
                     {"v": 3}]})
    counts["models"] += 3
    metrics = [
        {"name": "gross_revenue", "label": "Gross Revenue", "type": "simple",
         "description": "Order line amounts before discounts. Includes tax.",
         "type_params": {"measure": "gross_amount"}},
        {"name": "discounts", "label": "Discounts", "type": "simple", "description": "Discounts granted.",
         "type_params": {"measure": "discount_amount"}},
        {"name": "food_revenue", "label": "Food Revenue", "type": "simple", "description": "Revenue from food lines.",
         "type_params": {"measure": "food_amount"}},
        {"name": "invoiced_revenue", "label": "Invoiced Revenue", "type": "simple",
         "description": "Invoiced amounts. Excludes tax.", "type_params": {"measure": "invoiced_amount"}},
        {"name": "refunds", "label": "Refunds", "type": "simple", "description": "Refunded amounts.",
         "type_params": {"measure": "refunded_amount"}},
        {"name": "ad_spend", "label": "Ad Spend", "type": "simple", "description": "Paid media spend.",
         "type_params": {"measure": "ad_spend_amount"}},
        {"name": "signups", "label": "Signups", "type": "simple", "description": "New signups.",
         "type_params": {"measure": "signup_count"}},
        {"name": "mrr", "label": "Monthly Recurring Revenue", "type": "simple",
         "description": "Recurring revenue at month grain.", "type_params": {"measure": "mrr_amount"}},
        {"name": "subscriptions", "label": "Subscriptions", "type": "simple", "description": "Subscriptions started.",
         "type_params": {"measure": "subscription_count"}},
        {"name": "churned_subscriptions", "label": "Churned Subscriptions", "type": "simple",
         "description": "Subscriptions that churned.", "type_params": {"measure": "churned_subscriptions"}},
        {"name": "net_revenue", "label": "Net Revenue", "type": "derived",
         "description": "Gross revenue less discounts and refunds. Excludes tax.",
         "type_params": {"expr": "gross_revenue - discounts - refunds",
                         "metrics": [{"name": "gross_revenue"}, {"name": "discounts"}, {"name": "refunds"}]}},
        {"name": "food_revenue_pct", "label": "Food Revenue %", "type": "ratio",
         "description": "Share of gross revenue from food.",
         "type_params": {"numerator": "food_revenue", "denominator": "gross_revenue"}},
        {"name": "customer_acquisition_cost", "label": "Customer Acquisition Cost", "type": "ratio",
         "description": "Ad spend per signup.", "type_params": {"numerator": "ad_spend", "denominator": "signups"}},
        {"name": "churn_rate", "label": "Churn Rate", "type": "ratio", "description": "Churned over started.",
         "type_params": {"numerator": "churned_subscriptions", "denominator": "subscriptions"}},
        {"name": "revenue_per_signup", "label": "Revenue per Signup", "type": "derived",
         "description": "Invoiced revenue divided by signups.",
         "type_params": {"expr": "invoiced_revenue / nullif(signups, 0)",
                         "metrics": [{"name": "invoiced_revenue"}, {"name": "signups"}]}},
        {"name": "revenue_growth_mom", "label": "Revenue Growth MoM", "type": "derived",
         "description": "Month over month change in invoiced revenue.",
         "type_params": {"expr": "(invoiced_revenue - prior) / prior",
                         "metrics": [{"name": "invoiced_revenue"},
                                     {"name": "invoiced_revenue", "alias": "prior", "offset_window": "1 month"}]}},
    ]
    _dump(out / "models" / "marts" / "semantic" / "_semantic.yml",
          {"version": 2, "models": model_specs, "semantic_models": sm_specs, "metrics": metrics})


def _exposures(out: Path, counts: dict[str, int]) -> None:
    exposures = [
        ("weekly_business_review", "Weekly Business Review", "dashboard", "high", "Dana Ruiz", "dana.ruiz@acme.test",
         ["fct_order_lines", "fct_invoices", "fct_subscriptions"], "The Monday leadership dashboard."),
        ("board_deck_metrics", "Board Deck Metrics", "analysis", "medium", "Lee Park", "lee.park@acme.test",
         ["fct_invoices", "fct_refunds"], "Quarterly figures for the board deck."),
        ("marketing_funnel", "Marketing Funnel", "dashboard", "medium", "Ana Silva", "ana.silva@acme.test",
         ["fct_ad_spend", "fct_signups"], "Spend to signup funnel."),
        ("churn_model", "Churn Prediction Model", "ml", "low", "Ravi Shah", "ravi.shah@acme.test",
         ["fct_subscriptions", "dim_customers"], "Features for the churn model."),
        ("support_console", "Support Console", "application", "high", "Mia Chen", "mia.chen@acme.test",
         ["dim_support__tickets"], "Agent-facing console."),
        ("ops_daily", "Operations Daily", "notebook", "low", "Tom Berg", "tom.berg@acme.test",
         ["fct_operations__inventory_levels", "dim_operations__carriers"], "Daily ops notebook."),
    ]
    specs = [{"name": n, "label": label, "type": t, "maturity": mat,
              "url": f"https://bi.acme.test/{n.replace('_', '-')}", "description": desc,
              "depends_on": [f"ref('{d}')" for d in deps], "owner": {"name": owner, "email": email}}
             for n, label, t, mat, owner, email, deps, desc in exposures]
    _dump(out / "models" / "exposures.yml", {"version": 2, "exposures": specs})
    counts["exposures"] = len(specs)


# ---- a small dbt target from a spec, for tests that choose their own names ------------------------------------
# `generate` above writes a project that `dbt parse` turns into artifacts (scripts/make_dbt_fixture.sh). Tests that
# need a project shaped a particular way (described tables and look-alikes, doc blocks nobody references, a model,
# a source and a seed sharing a name, a metric named like its model, deprecated models, hidden objects) write the
# artifacts directly from a spec with `write_target`: the manifest holds what `dbt parse` records for those
# objects (schema v12: nodes, sources, docs, semantic models, metrics, parent_map), so AsOf reads it exactly as it
# reads a parsed project. Spec keys (all optional but `project`):
#   sources: [{source, name, description, columns, loaded_at_field, warn_hours, error_hours}]
#   seeds:   [{name, description, columns}]
#   models:  [{name, description, columns, depends_on: ["source:src.table" | "seed:name" | "model:name"],
#              deprecation_date, owner, doc_blocks: [doc name]}]
#   docs:    [{name, text}]
#   metrics: [{name, label, description, model, measure, agg, expr, owner}]
# `columns` is a list of names or of {name, description}.

SCHEMA_V12 = "https://schemas.getdbt.com/dbt/manifest/v12.json"


def _cols(columns) -> dict:
    out = {}
    for c in columns or []:
        c = {"name": c} if isinstance(c, str) else c
        out[c["name"]] = {"name": c["name"], "description": c.get("description", ""), "data_type": c.get("type"),
                          **{k: c[k] for k in ("meta", "tags") if c.get(k)}}
    return out


def write_target(spec: dict, folder: Path) -> Path:
    import json
    project = spec["project"]
    folder.mkdir(parents=True, exist_ok=True)
    nodes, sources, docs, parent_map, sms, metrics = {}, {}, {}, {}, {}, {}
    disabled: dict[str, list[dict]] = {}
    results: list[dict] = []
    run_at = spec.get("run_at", "2026-11-28T05:00:00Z")

    def uid(ref: str) -> str:
        kind, _, name = ref.partition(":")
        return f"{kind}.{project}.{name}"

    for s in spec.get("sources", []):
        key = f"source.{project}.{s['source']}.{s['name']}"
        item = {"resource_type": "source", "source_name": s["source"], "name": s["name"], "identifier": s["name"],
                "description": s.get("description", ""), "source_description": s.get("source_description", ""),
                "columns": _cols(s.get("columns")), "relation_name": f'"{s["source"]}"."{s["name"]}"',
                "original_file_path": f"models/staging/_{s['source']}__sources.yml"}
        if s.get("loaded_at_field"):
            item["loaded_at_field"] = s["loaded_at_field"]
            item["freshness"] = {"warn_after": {"count": s.get("warn_hours", 12), "period": "hour"},
                                 "error_after": {"count": s.get("error_hours", 48), "period": "hour"}}
        if s.get("freshness") is False:  # a source nobody checks: no loaded_at_field's thresholds either
            item.pop("freshness", None)
        _facts(item, s)
        sources[key] = item
        parent_map[key] = []
    for kind in ("seeds", "models"):
        for n in spec.get(kind, []):
            rtype = kind[:-1]
            key = f"{rtype}.{project}.{n['name']}"
            node = {"resource_type": rtype, "name": n["name"], "description": n.get("description", ""),
                    "columns": _cols(n.get("columns")), "database": "analytics", "schema": "main", "alias": n["name"],
                    "relation_name": f'"analytics"."main"."{n["name"]}"', "doc_blocks": [
                        f"doc.{project}.{d}" for d in n.get("doc_blocks", [])],
                    "original_file_path": f"{'seeds' if rtype == 'seed' else 'models'}/{n['name']}."
                                          f"{'csv' if rtype == 'seed' else 'sql'}",
                    "depends_on": {"nodes": [uid(d) if not d.startswith("source:")
                                             else f"source.{project}.{d.split(':', 1)[1]}"
                                             for d in n.get("depends_on", [])]}}
            if n.get("deprecation_date"):
                node["deprecation_date"] = f"{n['deprecation_date']}T00:00:00+00:00"
            if n.get("owner"):
                node["meta"] = {"owner": n["owner"]}
            _facts(node, n)
            if n.get("enabled") is False:  # dbt keeps a disabled node apart, as a list per id, with no edges
                disabled[key] = [node]
                continue
            nodes[key] = node
            parent_map[key] = node["depends_on"]["nodes"]
            if n.get("run"):
                results.append(_result(key, n["run"], run_at))
            for t in n.get("tests", []):
                tid, test = _test_node(project, key, t)
                nodes[tid] = test
                parent_map[tid] = test["depends_on"]["nodes"]
                if t.get("status"):
                    results.append(_result(tid, t, run_at))
    for d in spec.get("docs", []):
        docs[f"doc.{project}.{d['name']}"] = {"package_name": project, "name": d["name"], "block_contents": d["text"],
                                              "original_file_path": "models/docs.md"}
    for m in spec.get("metrics", []):
        model = f"model.{project}.{m['model']}"
        sm = f"semantic_model.{project}.{m['model']}"
        sms.setdefault(sm, {"name": m["model"], "description": "", "depends_on": {"nodes": [model]},
                            "node_relation": {"alias": m["model"]}, "entities": [], "dimensions": [], "measures": [],
                            "original_file_path": "models/semantic.yml"})
        sms[sm]["measures"].append({"name": m["measure"], "agg": m.get("agg", "count"), "expr": m.get("expr")})
        key = f"metric.{project}.{m['name']}"
        metrics[key] = {"name": m["name"], "label": m.get("label", m["name"]), "type": "simple",
                        "description": m.get("description", ""), "type_params": {"measure": {"name": m["measure"]}},
                        "original_file_path": "models/semantic.yml"}
        if m.get("owner"):
            metrics[key]["meta"] = {"owner": m["owner"]}
        parent_map[sm] = [model]
        parent_map[key] = [sm]
    manifest = {"metadata": {"dbt_schema_version": SCHEMA_V12, "project_name": project,
                             "generated_at": spec.get("generated_at", "2026-11-28T06:00:00Z")},
                "nodes": nodes, "sources": sources, "docs": docs, "exposures": {}, "semantic_models": sms,
                "metrics": metrics, "parent_map": parent_map, "disabled": disabled,
                "groups": {f"group.{project}.{g['name']}": {"name": g["name"], "owner": g.get("owner") or {}}
                           for g in spec.get("groups", [])}}
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1))
    if results:  # run_results.json only when the spec records a run: without it, no result is known
        (folder / "run_results.json").write_text(json.dumps(run_results(results, run_at), indent=1))
    return folder


def _facts(node: dict, spec: dict) -> None:
    """What a team sets in dbt beyond SQL: tags, meta, materialization, access, contract, group, enabled."""
    config = node.setdefault("config", {})
    if spec.get("tags"):
        node["tags"] = config["tags"] = list(spec["tags"])
    if spec.get("meta"):
        node["meta"] = {**node.get("meta", {}), **spec["meta"]}
        config["meta"] = dict(node["meta"])
    if spec.get("materialized"):
        config["materialized"] = spec["materialized"]
    if spec.get("access"):
        node["access"] = config["access"] = spec["access"]
    if spec.get("group"):
        node["group"] = config["group"] = spec["group"]
    if spec.get("contract"):
        node["contract"] = config["contract"] = {"enforced": True, "alias_types": True}
    if spec.get("enabled") is False:
        config["enabled"] = False


def _test_node(project: str, on: str, t: dict) -> tuple[str, dict]:
    """A generic test (`not_null` on a column) or a singular one (`singular: true`) on node `on`."""
    name = t["name"]
    col = t.get("column")
    full = f"{name}_{on.split('.')[-1]}" + (f"_{col}" if col else "")
    node = {"resource_type": "test", "name": full, "original_file_path": f"tests/{full}.sql",
            "depends_on": {"nodes": [on, *t.get("reads", [])]}, "config": {"severity": t.get("severity", "ERROR")}}
    if not t.get("singular"):
        node.update(test_metadata={"name": name, "kwargs": {"column_name": col}}, column_name=col, attached_node=on)
    return f"test.{project}.{full}.{hashlib.md5(full.encode()).hexdigest()[:10]}", node


def _result(uid: str, run: dict, run_at: str) -> dict:
    """One run_results entry: status (success/error/skipped for a model; pass/fail/warn/error/skipped for a
    test), its seconds, failing rows and message, finished at the run's time."""
    status = run.get("status", "success")
    failures = run.get("failures", 0 if status in ("pass", "success") else 1 if status in ("fail", "warn") else None)
    return {"unique_id": uid, "status": status, "execution_time": run.get("seconds", 0.5), "failures": failures,
            "message": run.get("message") or (f"Got {failures} result, configured to fail if != 0"
                                              if status in ("fail", "warn") else None),
            "timing": [{"name": "execute", "started_at": run_at, "completed_at": run.get("completed_at", run_at)}],
            "thread_id": "Thread-1", "adapter_response": {}}


def run_results(results: list[dict], run_at: str) -> dict:
    return {"metadata": {"dbt_schema_version": "https://schemas.getdbt.com/dbt/run-results/v6.json",
                         "generated_at": run_at},
            "results": results, "elapsed_time": sum(r["execution_time"] for r in results), "args": {"which": "build"}}


def decorate_manifest(manifest: dict) -> tuple[dict, dict]:
    """A parsed project as a team's that has run it: deterministic tags, meta (owner, PII, update frequency),
    materializations (views, tables, incremental), enforced contracts on public marts, a disabled model in every
    fifty, two generic tests per model with results (one in nine failing, one in thirteen warning), and the run's
    run_results.json with each model's status and time. Returns (manifest, run_results)."""
    run_at = manifest.get("metadata", {}).get("generated_at") or "2026-11-28T05:00:00Z"
    models = sorted(k for k, n in manifest["nodes"].items() if n.get("resource_type") == "model")
    results, disabled = [], manifest.setdefault("disabled", {})
    for i, uid in enumerate(models):
        node = manifest["nodes"][uid]
        name = node["name"]
        layer = "staging" if name.startswith("stg_") else "intermediate" if name.startswith("int_") else "mart"
        spec = {"tags": [layer, ["daily", "hourly", "weekly"][_pick(name, "freq", 3)]],
                "meta": {"owner": (node.get("meta") or {}).get("owner") or f"team-{_pick(name, 'own', 8)}",
                         "contains_pii": _pick(name, "pii", 7) == 0,
                         "update_frequency": ["daily", "hourly", "weekly"][_pick(name, "freq", 3)]},
                "materialized": {"staging": "view", "intermediate": "ephemeral"}.get(
                    layer, ["table", "incremental"][_pick(name, "mat", 2)]),
                "access": "public" if layer == "mart" else "protected",
                "contract": layer == "mart" and _pick(name, "contract", 4) == 0}
        _facts(node, spec)
        if i % 50 == 49:
            node["config"]["enabled"] = False
            disabled[uid] = [manifest["nodes"].pop(uid)]
            manifest.get("parent_map", {}).pop(uid, None)
            continue
        results.append(_result(uid, {"status": "success", "seconds": 0.2 + _pick(name, "secs", 40) / 10}, run_at))
        column = next(iter(node.get("columns") or {}), None) or "id"
        for test, salt in (("not_null", "nn"), ("unique", "uq")):
            fails = _pick(name, salt, 9) == 0
            warns = not fails and _pick(name, salt + "w", 13) == 0
            t = {"name": test, "column": column, "severity": "warn" if warns else "ERROR",
                 "status": "fail" if fails else "warn" if warns else "pass"}
            tid, tnode = _test_node(manifest.get("metadata", {}).get("project_name") or PROJECT, uid, t)
            manifest["nodes"][tid] = tnode
            manifest.setdefault("parent_map", {})[tid] = [uid]
            results.append(_result(tid, t, run_at))
    return manifest, run_results(results, run_at)


def lengthen_project(out: Path) -> None:
    """Long-text mode on a written project: every model and source description lengthened, columns described."""
    for path in sorted((out / "models").rglob("*.yml")):
        data = yaml.safe_load(path.read_text()) or {}
        for spec in data.get("models") or []:
            domain = path.parent.name
            spec["description"] = long_description(spec["name"], domain, str(spec.get("description") or ""))
            named = {c["name"] for c in spec.get("columns") or []}
            spec["columns"] = (spec.get("columns") or []) + [c for c in long_columns(spec["name"]) if c["name"] not in named]
        for src in data.get("sources") or []:
            for table in src.get("tables") or []:
                table["description"] = long_description(table["name"], src["name"], str(table.get("description") or ""))
        if data.get("models") or data.get("sources"):
            _dump(path, data)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--spec":  # write_target from a YAML spec
        print(write_target(yaml.safe_load(Path(sys.argv[2]).read_text()), Path(sys.argv[3])))
    else:
        args = [a for a in sys.argv[1:] if not a.startswith("--")]
        target = Path(args[0] if args else "build/acme-analytics")
        counts = generate(target)
        if "--long-text" in sys.argv[1:]:
            lengthen_project(target)
        print(counts)
