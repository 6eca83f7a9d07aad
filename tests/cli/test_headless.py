"""The headless core (ingest, model, views) never imports textual or rich."""

import subprocess
import sys


def test_core_does_not_import_ui() -> None:
    code = (
        "import sys, pkgutil, importlib\n"
        "import tracetui.ingest, tracetui.model, tracetui.views, tracetui.cli\n"
        "for pkg in (tracetui.ingest, tracetui.model, tracetui.views):\n"
        "    for m in pkgutil.iter_modules(pkg.__path__, pkg.__name__ + '.'):\n"
        "        importlib.import_module(m.name)\n"
        "bad = sorted(k for k in sys.modules if k.split('.')[0] in ('textual', 'rich'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"headless core imported: {out.stdout.strip()}"
