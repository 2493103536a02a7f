from evals.compare import main

raise SystemExit(main())
