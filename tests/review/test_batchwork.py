"""The cycle collector is paused for a block of whole-store work and restored after it."""

from __future__ import annotations

import gc

import pytest

from memcli.batchwork import without_cycle_collector


def test_the_collector_is_paused_and_restored_even_on_an_error() -> None:
    assert gc.isenabled()
    with without_cycle_collector():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ValueError), without_cycle_collector():
        raise ValueError("boom")
    assert gc.isenabled()


def test_a_collector_paused_by_the_caller_stays_paused() -> None:
    gc.disable()
    try:
        with without_cycle_collector():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
