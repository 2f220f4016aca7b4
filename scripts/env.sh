# Offline defaults for the app, tests and CI (sourced by the other scripts).
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_HUB_DISABLE_PROGRESS_BARS=1
export LITELLM_LOCAL_MODEL_COST_MAP=True LANCEDB_LOG=error
export PYTHONDONTWRITEBYTECODE=1
