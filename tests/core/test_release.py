"""Models freed on a background thread, a slice at a time (bpe_desktop.core.release)."""

from __future__ import annotations

import gc
import threading
import time
import weakref
from typing import ClassVar

import pytest

from bpe_desktop.core import BPEModel, Merge, TrainConfig

from bpe_desktop.core import release
from bpe_desktop.core.release import SLICE, _Releaser, free_in_slices


class Item:
    """A small object whose end can be watched (weakref) and whose freeing thread is noted."""

    freed_on: ClassVar[list[str]] = []

    def __del__(self) -> None:
        Item.freed_on.append(threading.current_thread().name)


class Holder:
    def __init__(self, items) -> None:
        self.items = items
        self.name = "holder"


class Breaths:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> None:
        self.count += 1


@pytest.fixture(autouse=True)
def _no_automatic_collection():
    # Freeing must come from reference counting alone, as in the application.
    was = gc.isenabled()
    gc.disable()
    Item.freed_on.clear()
    yield
    if was:
        gc.enable()


def test_a_long_list_is_freed_a_slice_at_a_time():
    items = [Item() for _ in range(5 * SLICE + 1)]
    refs = [weakref.ref(items[0]), weakref.ref(items[-1])]
    breaths = Breaths()
    free_in_slices(items, breaths)
    assert items == []
    assert breaths.count == 6  # 5 full slices and the one left over
    assert [r() for r in refs] == [None, None]


def test_what_an_object_alone_holds_is_taken_apart_and_freed_in_slices():
    holder = [Holder(tuple(Item() for _ in range(3 * SLICE)))]
    first = weakref.ref(holder[0].items[0])
    breaths = Breaths()
    free_in_slices(holder, breaths)
    assert first() is None
    assert len(Item.freed_on) == 3 * SLICE
    # The tuple's items went in slices: three breaths for them, not one for the holder.
    assert breaths.count >= 3


def test_a_small_dict_of_long_lists_is_taken_apart_as_a_parsed_model_file_is():
    parsed = [{"format": "x", "merges": [Item() for _ in range(3 * SLICE)],
               "words": [[Item(), 1] for _ in range(2 * SLICE)]}]
    first = weakref.ref(parsed[0]["merges"][0])
    breaths = Breaths()
    free_in_slices(parsed, breaths)
    assert parsed == [] and first() is None
    assert len(Item.freed_on) == 5 * SLICE
    # Each long list went in slices (3 + 2 breaths at least), not with the dict at once.
    assert breaths.count >= 5


def test_what_another_owner_still_holds_is_left_alone():
    shared = tuple(Item() for _ in range(3 * SLICE))
    holder = [Holder(shared)]
    free_in_slices(holder, Breaths())
    assert Item.freed_on == []
    assert len(shared) == 3 * SLICE and all(isinstance(i, Item) for i in shared)


def _model(merges: int = 3 * SLICE) -> BPEModel:
    """a, aa, aaa, ... (``merges`` merges)."""
    merges = tuple(Merge("a" * (i + 1), "a", i + 1) for i in range(merges))
    return BPEModel(config=TrainConfig(vocab_size=len(merges) + 1), alphabet=("a",),
                    merges=merges)


def _freed_on(obj) -> list[str]:
    """Where ``obj`` will have been freed (filled in when it is)."""
    where: list[str] = []
    weakref.finalize(obj, lambda: where.append(threading.current_thread().name))
    return where


def test_a_retired_model_waits_for_its_other_owners_then_is_freed_on_the_release_thread():
    releaser = _Releaser(wait_for_owners=60, poll=0.01)
    model = _model(merges=300)
    # cached properties and tables: what a shown model holds
    assert len(model.pieces) == len(model.piece_ids) > 300
    where = _freed_on(model)
    owner = [model]  # a panel that still shows it
    releaser.retire(model)
    del model
    assert not releaser.wait_idle(0.3)  # still shared: kept, not freed
    assert where == []
    owner.clear()
    assert releaser.wait_idle(10)
    assert where == ["bpe-release"]


def test_a_model_still_shared_after_the_wait_is_let_go_of_not_freed():
    releaser = _Releaser(wait_for_owners=0.05, poll=0.01)
    model = _model(merges=300)
    where = _freed_on(model)
    releaser.retire(model)
    assert releaser.wait_idle(10)
    assert where == [] and len(model.merges) == 300
    del model
    assert where == [threading.current_thread().name]  # freed by its last owner


def test_retire_lets_go_of_the_cached_tokenizer_that_refers_back_to_the_model():
    model = _model(merges=50)
    model.tokenizer()
    where = _freed_on(model)
    release.retire(model)
    del model
    # Without dropping the tokenizer first, only the cyclic collector (off here) could
    # free the model. (Models other tests retired may still be held: wait for this one.)
    deadline = time.monotonic() + 10
    while not where and time.monotonic() < deadline:
        time.sleep(0.01)
    assert where == ["bpe-release"]
