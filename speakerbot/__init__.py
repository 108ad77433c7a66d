"""speakerbot: an automated Speaker for Nomic played by email."""

__version__ = "0.1.0"
