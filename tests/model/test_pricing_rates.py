"""Prices from kept rates (model/pricing.py ``probe_rates``, ``set_rate_store``;
session/price_rates.py): the same figure as genai-prices' own, without importing it again."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tracetui.model import pricing
from tracetui.model.pricing import NO_PRICE, model_price, set_rate_store
from tracetui.session.price_rates import RATES_FILE, FileRates


class DictRates(dict):
    def put(self, key: str, value: object) -> None:
        self[key] = value


@pytest.fixture(autouse=True)
def _no_store():
    set_rate_store(None)
    yield
    set_rate_store(None)


def cases(seed: int) -> list[tuple]:
    """Buckets of several models (one unknown), days on both sides of a price change and
    means in every tier band, with and without 1-hour cache writes."""
    rnd = random.Random(seed)
    out = []
    for model in ("claude-opus-4-6", "claude-sonnet-4-5", "claude-haiku-4-5", "gpt-5.4", "gpt-5.5", "no-such-model-9"):
        for day in ("2025-06-01", "2026-03-12", "2026-03-13"):
            for per in (40, 5_000, 99_999, 150_000, 250_000, 400_000):
                n = rnd.choice((1, 2, 3, 7))
                cr = rnd.randrange(per) * n
                cw = rnd.randrange(max(1, per - cr // n)) * n
                inp = max(0, per * n - cr - cw)
                out.append((model, inp, rnd.randrange(20_000) * n, cw, cr, day, n, rnd.choice((0, cw // 3))))
    return out


def test_prices_from_rates_are_genai_prices_own() -> None:
    cs = cases(5)
    want = [model_price(*c) for c in cs]
    store = DictRates()
    set_rate_store(store)
    got = [model_price(*c) for c in cs]
    assert got == want
    assert any(v == NO_PRICE for v in store.values())  # the unknown model: kept as no price
    assert all(isinstance(v, list) for k, v in store.items() if "no-such-model" not in k)

    # read back from the kept rates alone (no probe: a store that refuses new keys)
    class Frozen(DictRates):
        def put(self, key: str, value: object) -> None:
            raise AssertionError(f"probed again: {key}")

    set_rate_store(Frozen(store))
    assert [model_price(*c) for c in cs] == want


def test_a_malformed_day_still_raises() -> None:
    set_rate_store(DictRates())
    with pytest.raises(ValueError):
        model_price("claude-opus-4-6", 1, 1, 0, 0, "2026-13-40")


def test_rates_that_do_not_give_genai_prices_figure_are_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    real = pricing._calc

    def squared(*a: object) -> object:  # a price that is not linear in the tokens
        r = real(*a)  # type: ignore[arg-type]
        return None if r is None else r * r * 1000

    monkeypatch.setattr(pricing, "_calc", squared)
    store = DictRates()
    set_rate_store(store)
    c = ("claude-opus-4-6", 1_000, 200, 300, 400, "2026-02-01", 1, 0)
    assert model_price(*c) == float(squared("claude-opus-4-6", "2026-02-01", 1_700, 200, 300, 400, 0))  # type: ignore[arg-type]
    assert list(store.values()) == [pricing.NOT_LINEAR]


def test_the_rates_file_is_read_by_the_next_process_which_then_never_imports_genai_prices(tmp_path: Path) -> None:
    path = tmp_path / RATES_FILE
    store = FileRates(path)
    set_rate_store(store)
    c = ("claude-opus-4-6", 1_234, 567, 89, 10_000, "2026-02-01", 2, 0)
    want = model_price(*c)
    assert not path.exists()  # written once, at exit (or by save)
    assert store.save()
    assert want is not None and path.stat().st_mode & 0o777 == 0o600
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from tracetui.model.pricing import model_price, set_rate_store\n"
        "from tracetui.session.price_rates import FileRates\n"
        f"set_rate_store(FileRates(Path({str(path)!r})))\n"
        f"print(repr(model_price(*{c!r})), 'genai_prices' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split()
    assert out == [repr(want), "False"]


def test_a_rates_file_of_another_install_or_broken_is_read_as_empty(tmp_path: Path) -> None:
    path = tmp_path / RATES_FILE
    c = ("claude-opus-4-6", 1_000, 10, 0, 0, "2026-02-01", 1, 0)
    want = model_price(*c)
    key = "anthropic|claude-opus-4-6|2026-02-01|0"
    for text in (orjson.dumps({"key": "another install", "rates": {key: ["1", "1", "1", "1", "1", "1"]}}), b"{not json", b"[]"):
        path.write_bytes(text)
        store = FileRates(path)
        set_rate_store(store)
        assert model_price(*c) == want
        assert store.save()
        assert orjson.loads(path.read_bytes())["rates"][key] != ["1", "1", "1", "1", "1", "1"]


@pytest.mark.parametrize(
    "bad",
    [
        ["abc", "1", "1", "1", "1", "1"],
        ["NaN", "0", "0", "0", "0", "0"],
        ["1e999999999", "0", "0", "0", "0", "0"],
        ["1"] * 5,
        ["1"] * 7,
        [1, 1, 1, 1, 1, 1],
        "other",
        None,
    ],
)
def test_a_kept_rate_tracetui_could_not_have_written_is_probed_again(tmp_path: Path, bad: object) -> None:
    from tracetui.session.price_rates import _key

    path = tmp_path / RATES_FILE
    c = ("claude-opus-4-6", 1_000, 10, 0, 0, "2026-02-01", 1, 0)
    want = model_price(*c)
    path.write_bytes(orjson.dumps({"key": _key(), "rates": {"anthropic|claude-opus-4-6|2026-02-01|0": bad}}))
    set_rate_store(FileRates(path))
    assert model_price(*c) == want


def test_a_fifo_or_a_device_in_place_of_the_file_is_not_read(tmp_path: Path) -> None:
    import os

    c = ("claude-opus-4-6", 1_000, 10, 0, 0, "2026-02-01", 1, 0)
    want = model_price(*c)
    fifo = tmp_path / "fifo" / RATES_FILE
    fifo.parent.mkdir()
    os.mkfifo(fifo)  # read whole, it would block until a writer came
    zero = tmp_path / "zero" / RATES_FILE
    zero.parent.mkdir()
    zero.symlink_to("/dev/zero")  # read whole, it would never end
    for path in (fifo, zero):
        set_rate_store(FileRates(path))
        assert model_price(*c) == want


def test_two_processes_saving_keep_both_their_rates(tmp_path: Path) -> None:
    path = tmp_path / RATES_FILE
    a, b = FileRates(path), FileRates(path)
    set_rate_store(a)
    model_price("claude-opus-4-6", 1_000, 10, 0, 0, "2026-02-01", 1, 0)
    set_rate_store(b)
    model_price("claude-sonnet-4-5", 1_000, 10, 0, 0, "2026-02-02", 1, 0)
    assert b.save() and a.save()  # a saves last: b's rate stays
    kept = orjson.loads(path.read_bytes())["rates"]
    assert {"anthropic|claude-opus-4-6|2026-02-01|0", "anthropic|claude-sonnet-4-5|2026-02-02|0"} <= set(kept)
