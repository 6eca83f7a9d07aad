"""The session layer: a session's files read and folded (reader), its store, its follow loop."""
