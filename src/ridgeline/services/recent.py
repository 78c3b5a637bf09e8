"""The recent answers of a route, kept for when they are asked for again: a page polls every few seconds and asks
for the same series, graphs and forecasts while nothing changed. The keys carry what would change the answer (a
series' change token, a log directory's generation, a file's stamp), so a kept answer is never stale; only the
``capacity`` most recently used are kept.

Imports nothing but the standard library: ``server.early`` uses it before the web stack is imported.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class RecentAnswers(Generic[K, V]):
    """A bounded, thread-safe memo (routes run in a thread pool). ``get`` computes a missing answer outside the
    lock, so a slow one holds up no other key; two requests for the same missing key compute it once (the second
    waits for the first). An answer whose computation raised is not kept."""

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError(f"capacity: expected at least 1 answer to keep, got {capacity}")
        self.capacity = capacity
        self._kept: OrderedDict[K, V] = OrderedDict()
        self._computing: dict[K, threading.Lock] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, key: K, compute: Callable[[], V]) -> V:
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)
                return self._kept[key]
            computing = self._computing.setdefault(key, threading.Lock())
        with computing:
            with self._lock:
                if key in self._kept:  # computed by the request this one waited for
                    self._kept.move_to_end(key)
                    return self._kept[key]
            try:
                answer = compute()
            except BaseException:
                with self._lock:
                    self._computing.pop(key, None)  # an unknown run must not leave a lock behind per request
                raise
            with self._lock:
                self._kept[key] = answer
                while len(self._kept) > self.capacity:
                    self._kept.popitem(last=False)
                self._computing.pop(key, None)
        return answer
