"""Ways in: the command line, the daemon, the demo and `speakerbot parse`."""
