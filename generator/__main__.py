from generator.cli.main import main

raise SystemExit(main())
