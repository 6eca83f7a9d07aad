"""The Textual app (the observer view)."""
