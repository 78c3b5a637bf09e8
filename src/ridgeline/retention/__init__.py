"""Retention: deleting the runs a policy selects from log directories, local or on object storage
(``ridgeline clean``, ``ridgeline serve --retention``; docs/retention.md).

The one part of ridgeline that deletes files. It sits beside the reading API, above everything the server
uses, and the server never imports it: ``serve`` hands the server a
:class:`~ridgeline.retention.background.Sweeper`'s status to show.

* :mod:`.units`: sizes and durations as typed (``50GB``, ``30d``);
* :mod:`.tree`: the storage (local without following symlinks, or fsspec), the refusals, removing and moving;
* :mod:`.last_event`: a run's last event time from the tail of its event files;
* :mod:`.candidates`: the runs of a log directory (nested runs with their parent) and the files each would lose;
* :mod:`.policy`: the rules and what they decide; :mod:`.sweep`: carrying a plan out;
* :mod:`.background`: the server's periodic sweep and its status.

Import what you need from those modules: importing this package alone loads none of them (the command line
reads sizes and durations with :mod:`.units` before anything else is needed).
"""
