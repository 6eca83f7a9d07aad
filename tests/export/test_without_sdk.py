"""Without the ``otlp`` extra: ``tracetui export otlp`` is one line naming it and exit status 1,
its ``--help`` still works, and the plan needs no OpenTelemetry package (a fresh interpreter in
which every ``opentelemetry`` import fails, as on an install without the extra)."""

from __future__ import annotations

import subprocess
import sys

from session_gen import build

_BLOCK = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name == "opentelemetry" or name.startswith("opentelemetry."):
            raise ImportError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Block())
from tracetui.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _BLOCK, *args], capture_output=True, text=True, timeout=120)


#: the ways to install the extra the message names: the README's checkout, pipx, pip
_WAYS = (".venv/bin/pip install -e '.[otlp]'", "pipx inject tracetui opentelemetry-sdk", "pip install 'tracetui[otlp]'")


def test_missing_extra_is_one_line_naming_it(tmp_path):
    path, _ = build(tmp_path)
    p = _run("export", "otlp", str(path))
    assert p.returncode == 1 and p.stdout == ""
    assert p.stderr.splitlines() == [p.stderr.strip()] and all(way in p.stderr for way in _WAYS)
    assert "Traceback" not in p.stderr


def test_help_and_plan_need_no_sdk(tmp_path):
    p = _run("export", "otlp", "--help")
    assert p.returncode == 0 and "--endpoint" in p.stdout
    path, _ = build(tmp_path)
    code = _BLOCK.split("from tracetui.cli")[0] + (
        "from pathlib import Path\n"
        "from tracetui.session.open import load_state\n"
        "from tracetui.export.plan import plan_spans\n"
        f"state = load_state([Path({str(path)!r})], True, False)[1]\n"
        "print(len(plan_spans(state, settle=0).spans))\n"
    )
    q = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert q.returncode == 0, q.stderr
    assert int(q.stdout) > 20
