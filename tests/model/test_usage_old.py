"""The packed usage of old message ids (model/usage_old.py): exact for any id and count, and
the same table after a save and a reopen (the fold cache: store/codec.py)."""

from __future__ import annotations

import random

import pytest

from tracetui.model.usage_old import OldUsage
from tracetui.session.store.codec import decode_value, encode_value


def reopened(o: OldUsage) -> OldUsage:
    """``o`` saved and read back as a warm reopen does (its bytes as views of the row)."""
    back = decode_value(*encode_value(o))
    assert isinstance(back, OldUsage)
    return back


def assert_same(o: OldUsage, ref: dict[str, tuple]) -> None:
    assert len(o) == len(ref)
    for k, e in ref.items():
        assert o.get(k) == e
    assert o.get("never-put") is None
    assert sorted(e for _, e in o.items()) == sorted(ref.values())


def test_random_puts_and_pops_match_a_dict_across_reopens() -> None:
    rnd = random.Random(7)
    o, ref = OldUsage(), {}
    for step in range(6000):
        k = f"msg_{rnd.randrange(3000)}"
        if k in ref and rnd.random() < 0.4:
            assert o.pop(k) == ref.pop(k)
        elif k not in ref:
            e = (tuple(rnd.randrange(10**6) for _ in range(5)), f"model-{rnd.randrange(3)}", f"2026-01-0{rnd.randrange(1, 9)}|0|m")
            o.put(k, e)
            ref[k] = e
        else:
            assert o.pop(k + "-absent") is None
        if step % 1500 == 0:
            o = reopened(o)
            assert_same(o, ref)
    assert_same(reopened(o), ref)


def test_a_count_beyond_32_bits_widens_the_tokens_and_stays_exact() -> None:
    o, ref = OldUsage(), {}
    for i in range(100):
        ref[f"m{i}"] = ((i, 2 * i, 0, 5, 1), "opus", "d|0|opus")
        o.put(f"m{i}", ref[f"m{i}"])
    assert o._u.typecode == "I"
    big = ((10**12, (1 << 32), 0, 0, 3), "opus", "d|1|opus")
    o.put("huge", big)
    ref["huge"] = big
    assert o._u.typecode == "q"
    assert_same(o, ref)
    back = reopened(o)
    assert back._u.typecode == "q"
    assert_same(back, ref)


def test_more_than_65536_strings_widen_their_indices() -> None:
    o, ref = OldUsage(), {}
    n = (1 << 16) + 10
    for i in range(n):
        ref[f"m{i}"] = ((1, i, 0, 0, 0), "opus", f"k{i}")
        o.put(f"m{i}", ref[f"m{i}"])
    assert o._s.typecode == "I"
    assert o.get(f"m{n - 1}") == ref[f"m{n - 1}"]  # its index beyond 16 bits, kept whole
    back = reopened(o)
    assert back._s.typecode == "I" and back.get(f"m{n - 1}") == ref[f"m{n - 1}"] and len(back) == n


def test_the_reopened_table_owns_its_arrays() -> None:
    o = OldUsage()
    o.put("a", ((1, 2, 3, 4, 5), "opus", "d|0|opus"))
    parts = o.to_cache()
    bufs = [bytearray(p) if isinstance(p, bytes) else p for p in parts]
    back = OldUsage.from_cache([memoryview(b) if isinstance(b, bytearray) else b for b in bufs])
    for b in bufs:
        if isinstance(b, bytearray):
            b[:] = bytes(len(b))
    assert back.get("a") == ((1, 2, 3, 4, 5), "opus", "d|0|opus")


@pytest.mark.parametrize("bad", [lambda v: v[:8] + ["zz"], lambda v: [v[0][:8], *v[1:]], lambda v: [*v[:4], v[4][:-4], *v[5:]]])
def test_a_damaged_table_is_refused(bad) -> None:
    o = OldUsage()
    for i in range(20):
        o.put(f"m{i}", ((i, 1, 0, 0, 0), "opus", "d|0|opus"))
    with pytest.raises(ValueError):
        OldUsage.from_cache(bad(o.to_cache()))


def test_the_filter_of_ids_put_answers_as_the_digests_do() -> None:
    """The filter of ids put by key (a clear bit: never put) changes no answer: in a table only
    ever put by key, after a digest put (the filter is dropped), and after a reopen."""
    from tracetui.model.usage_old import digest_of

    rnd = random.Random(11)
    o, ref = OldUsage(), {}
    for step in range(4000):
        k = f"msg_{rnd.randrange(2500)}"
        if k in ref and rnd.random() < 0.3:
            assert o.pop(k) == ref.pop(k)
        elif k not in ref:
            e = ((step, 1, 2, 3, 0), "opus", "2026-01-01|0|opus")
            if step >= 3000 and o._exact:
                o.put_digest(*digest_of(k), e)  # from here on, the digests alone answer
                assert o._filter is None
            else:
                o.put(k, e)
            ref[k] = e
        assert o.get(f"absent-{step}") is None and o.pop(f"absent-{step}") is None
        if step == 2000:
            assert o._filter is not None and o._exact
            assert_same(o, ref)
    assert not o._exact
    assert_same(o, ref)
    assert_same(reopened(o), ref)
