"""Mail on its way out: announcements, replies, and composing the messages."""
