from core.serve.cli import main

raise SystemExit(main())
