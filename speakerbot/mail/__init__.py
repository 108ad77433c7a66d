"""Reading players' mail: raw message bytes in, a typed parse of the commands out.

This package is pure: no network, no database, no game engine.

- :mod:`speakerbot.mail.inbound.reading` turns the raw bytes of one message into an
  :class:`~speakerbot.mail.inbound.reading.InboundMail` (sender, subject, plain-text body,
  and whether the message is skipped or cannot be read);
- :mod:`speakerbot.mail.inbound.language` reads the command language from a Subject and a
  plain-text body into a :class:`~speakerbot.mail.inbound.language.ParseResult`;
- :mod:`speakerbot.mail.inbound.parse_json` joins the two for ``speakerbot parse FILE``.
"""
