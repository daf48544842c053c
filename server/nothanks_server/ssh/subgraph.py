"""Garbage in one corner of the heap, found and given back without walking the rest (a frozen heap's collector).

An SSH worker freezes its heap every second (worker.py): no collection walks what is frozen, so what dies in a
reference cycle afterwards (a screen a player has left, the app of a player who has gone) is never freed by Python.
A full collection would free it, but it walks every object of every player in the worker (a pause each of them
sees), and writes to the pages the workers share with their forkserver. ``reclaim`` does what Python's collector
does, on a small part of the heap only: the objects reachable from a few roots (a closed screen), and for those it
frees, nothing else is read.

How (the algorithm of CPython's own collector, ``Modules/gcmodule.c``, in Python):

1. The candidates: every object the garbage collector tracks that is reachable from the roots, through
   ``gc.get_referents``, stopping at what is plainly shared (classes, modules, code, and any object referred to
   more than ``SHARED_REFERENCES`` times) and at what ``stop`` says.
2. For each candidate, its references from other candidates are counted. A candidate whose reference count is
   higher is referred to from outside: it is alive, and so is everything it reaches among the candidates. So is a
   candidate that a weak reference from outside can reach (a live ``WeakSet`` could hand it out again).
3. The rest is garbage: no reference to it comes from anything alive. Its containers are emptied (dicts, lists,
   sets, deques, instance attributes, closure cells), which breaks its cycles; reference counting then frees it,
   frozen or not.

Any stopping rule is safe: a candidate left out only makes more of the others look referred to from outside, so
less is freed, never something in use. A reference a C type does not report counts as from outside too. The
count of this function's own references is measured on a sentinel object each time, not assumed, and nothing is
emptied if it disagrees.
"""

from __future__ import annotations

import collections
import gc
import sys
import types
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass

SHARED_REFERENCES = 32  # an object referred to this often is taken to be shared (a style, a colour, a namespace)
LIMIT = 10_000  # candidates at most: a root reaching more is left alone (closed screens seen: 1,600-3,100)
_NEVER = (type, types.ModuleType, types.CodeType, types.FrameType)
_WEAK_CONTAINERS = (weakref.WeakKeyDictionary, weakref.WeakValueDictionary, weakref.WeakSet)


@dataclass(frozen=True)
class Reclaimed:
    """What one ``reclaim`` found: candidates looked at, how many were garbage, and whether it gave up."""

    candidates: int
    garbage: int
    gave_up: bool = False


def reclaim(
    roots: Iterable[weakref.ref[object]], stop: Callable[[object], bool] = lambda _: False, limit: int = LIMIT
) -> Reclaimed:
    """Free what is only kept by reference cycles among the objects reachable from ``roots`` (weak references:
    a strong one held by the caller would keep all of it alive)."""
    root_refs = list(roots)
    ignored = {id(ref) for ref in root_refs}
    sentinel: list[object] = [[]]  # a candidate with one reference of its own ("sentinel"), to measure ours
    members: dict[int, object] = {id(sentinel): sentinel}
    stack: list[object] = [sentinel[0]]
    stack += [root for root in (ref() for ref in root_refs) if root is not None]
    root_ids = {id(root) for root in stack}
    shared = SHARED_REFERENCES + 2  # (getrefcount's argument, and the stack's reference)
    is_tracked, referents, references = gc.is_tracked, gc.get_referents, sys.getrefcount
    children: list[list[object]] = []  # each candidate's referents, kept for the count below, then let go
    while stack:
        item = stack.pop()
        key = id(item)
        if key in members or not is_tracked(item) or isinstance(item, _NEVER):
            continue
        if (references(item) > shared and key not in root_ids) or stop(item):
            continue
        members[key] = item
        if len(members) > limit:
            return Reclaimed(len(members), 0, gave_up=True)
        reached_from = referents(item)
        children.append(reached_from)
        stack += reached_from
    item, reached_from = None, []
    internal = dict.fromkeys(members, 0)
    for reached_from in children:
        for referent in reached_from:
            key = id(referent)
            if key in internal:
                internal[key] += 1
    del children  # (its references are not the heap's)
    reached_from, referent = [], None
    found = list(members.values())
    # references each candidate has beyond those of other candidates (ours included: measured on the sentinel)
    outside = [references(item) - internal[id(item)] for item in found]
    item = None
    ours = outside[0] - 1 if found and found[0] is sentinel else None
    if ours is None:
        return Reclaimed(len(found), 0, gave_up=True)
    alive: set[int] = set()
    reached: list[object] = []
    for index, item in enumerate(found):
        if outside[index] > ours or _weakly_reachable(item, members, ignored):
            alive.add(id(item))
            reached.append(item)
    item = None
    while reached:
        for referent in referents(reached.pop()):
            key = id(referent)
            if key in members and key not in alive:
                alive.add(key)
                reached.append(referent)
    referent = None
    garbage = [item for item in found if id(item) not in alive]
    del found, members, internal, outside, reached, stack
    for item in garbage:
        _empty(item)
    item = None
    count = len(garbage)
    del garbage
    return Reclaimed(count + len(alive), count)


def _weakly_reachable(item: object, members: dict[int, object], ignored: set[int]) -> bool:
    """Whether a weak reference that is not a candidate's (nor the caller's to a root) points at ``item``."""
    if not weakref.getweakrefcount(item):
        return False
    return any(id(ref) not in members and id(ref) not in ignored for ref in weakref.getweakrefs(item))


def _empty(item: object) -> None:
    """Drop the references ``item`` holds, where Python lets us (enough to break the cycles it is part of)."""
    # the built-ins' own ``clear`` (a subclass's override would run code on garbage)
    if isinstance(item, dict):
        dict.clear(item)
    elif isinstance(item, list):
        list.clear(item)
    elif isinstance(item, set):
        set.clear(item)
    elif isinstance(item, collections.deque):
        collections.deque.clear(item)
    elif isinstance(item, types.CellType):
        try:
            del item.cell_contents
        except ValueError:  # (already empty)
            pass
    elif type(item).__dictoffset__ and not isinstance(item, _WEAK_CONTAINERS):
        try:
            attributes = object.__getattribute__(item, "__dict__")
        except AttributeError:
            return
        if isinstance(attributes, dict):
            dict.clear(attributes)
