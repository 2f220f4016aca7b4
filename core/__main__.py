import gc

# Importing the CLI imports most of AsOf, and all of it lives until the process ends: the collector's passes over it
# freed nothing and were part of a cold `ask`'s time (docs/scale.md). Frozen after, it stays out of later passes.
gc.disable()
from core.serve.cli import main  # noqa: E402

gc.freeze()
gc.enable()

raise SystemExit(main())
