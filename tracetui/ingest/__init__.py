"""Ingest: tail transcript files, decode records, discover sessions and subagents."""
