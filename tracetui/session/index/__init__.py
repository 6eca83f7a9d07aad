"""The cross-session index: one SQLite database over every transcript under the projects
folder, kept up to date incrementally, for the questions no single session answers (what did
last week cost, where did I ask for X).

``refresh(root)`` opens and updates it (session/index/sync.py), ``build_report`` groups its
tokens and costs (session/index/query.py), ``search`` finds prompts and tool calls
(session/index/search.py); session/index/db.py has the schema.
"""

from tracetui.session.index.db import index_path
from tracetui.session.index.query import KINDS, Group, Report, build_report
from tracetui.session.index.search import Hit, search
from tracetui.session.index.sync import AGENT, Index, UpdateStats, open_index, refresh, update

__all__ = [
    "AGENT",
    "Group",
    "Hit",
    "Index",
    "KINDS",
    "Report",
    "UpdateStats",
    "build_report",
    "index_path",
    "open_index",
    "refresh",
    "search",
    "update",
]
