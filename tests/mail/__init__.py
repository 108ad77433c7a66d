"""Tests of speakerbot.mail: reading raw mail and the command language."""
