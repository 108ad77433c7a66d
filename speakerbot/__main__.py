"""Run the command line as ``python -m speakerbot``."""

from speakerbot.cli import main

raise SystemExit(main())
