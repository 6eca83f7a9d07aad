"""tracetui: a terminal live monitor for Claude Code and OpenAI Codex CLI sessions."""

__version__ = "0.1.0"
