"""Run the command line as ``python -m speakerbot``."""

from speakerbot.entrypoints.cli import main

raise SystemExit(main())
