"""Players' mail on its way in: reading, authentication, redaction and the command language."""
