"""What retention chooses among: the runs of one log directory, each with the runs nested in it, as candidates.

A run is what the reader finds (:func:`ridgeline.ingest.discovery.find_runs`): a directory holding event files.
A run nested in another run's directory is part of it: ``add_hparams`` writes each trial as ``<run>/<time>``
and ``add_scalars`` each series as ``<run>/<tag>_<name>``, runs of their own that mean nothing without their
parent, so a candidate is a run and every run below it, kept or deleted together. The log directory's own
root run (event files directly in it, named ``.``) is the exception: it holds every other run, so it is a
candidate of its own made of the files directly in the log directory.

What deleting a candidate removes (``goes``): its event files and its embedding projector files
(``projector_config.pbtxt``, in the run directory or under ``plugins/org_tensorflow_tensorboard_projector/``, and
the files it names, such as torch's ``<step>/<tag>/tensors.tsv``). Everything else in its directories stays
(``stays``): profiler traces (``*.pt.trace.json[.gz]``), notes (``README.md``, ``NOTES.md``), checkpoints, any
file a person or another tool put there; with ``all_files`` those go too. Symlinks and anything that is not a
regular file always stay.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import IO, cast

from ridgeline.ingest.discovery import FileSystem, LogDirSource, find_runs, is_event_file
from ridgeline.ingest.projector import CONFIG_FILE, PLUGIN_ASSETS_DIR, read_projector
from ridgeline.retention.last_event import last_wall_time
from ridgeline.retention.tree import Entry, Listing, RemoteTree, Tree, inside
from ridgeline.store.embeddings import ProjectorError

__all__ = ["Candidate", "Scan", "scan"]


@dataclass(frozen=True)
class Candidate:
    """A run and the runs nested in it: what a retention policy keeps or deletes as one."""

    name: str  # the run's name, as the reader and the page show it
    runs: tuple[str, ...]  # it and its nested runs, sorted
    relative: str  # its directory relative to the log directory, with "/" ("." for the root run)
    goes: tuple[Entry, ...]  # the files deleting it removes
    stays: tuple[Entry, ...]  # the files in its directories that stay (see the module's docstring)
    directories: tuple[str, ...]  # removed when deleting it left them empty
    run_directories: tuple[str, ...]  # its runs' directories, looked at again just before deleting
    last_event: float | None  # the wall time of its last event; None when no record could be read
    last_written: float  # the newest modification time of any of its regular files

    @property
    def size(self) -> int:
        """What deleting it frees, in bytes."""
        return sum(entry.size for entry in self.goes)

    @property
    def last_active(self) -> float:
        """When it was last written to: its last event or its newest file, whichever is later."""
        return max(self.last_event or 0.0, self.last_written)

    @property
    def last_seen(self) -> float:
        """What age is measured from: its last event, else (no readable record) its newest file."""
        return self.last_event if self.last_event is not None else self.last_written


@dataclass
class Scan:
    """The candidates of one log directory, and what could not be looked at."""

    source: LogDirSource
    tree: Tree
    candidates: list[Candidate]
    problems: list[str] = field(default_factory=list)


def scan(source: LogDirSource, tree: Tree, *, all_files: bool = False) -> Scan:
    """Every candidate of the log directory ``source`` (whose storage is ``tree``)."""
    listing = tree.scan()
    runs = find_runs(source, cast(FileSystem, listing))  # it only walks the listing and joins names
    by_directory = {location.directory: name for name, (location, _) in runs.items()}
    problems = list(listing.problems)
    opener = _opener(tree)
    candidates = []
    for top, members in _groups(by_directory, tree.root, tree.sep).items():
        if top == tree.root:
            entries, directories, projector = _root_files(listing, top, opener, problems)
        else:
            directories = listing.below(top)
            entries = [entry for directory in directories for entry in listing.directories[directory]]
            projector = set().union(*(_projector_files(listing, member, opener, problems) for member in members))
        goes = tuple(
            entry
            for entry in entries
            if entry.regular and (all_files or is_event_file(entry.name) or entry.path in projector)
        )
        going = {entry.path for entry in goes}
        candidates.append(
            Candidate(
                name=by_directory[top],
                runs=tuple(sorted(by_directory[member] for member in members)),
                relative=_relative(top, tree.root, tree.sep),
                goes=goes,
                stays=tuple(entry for entry in entries if entry.path not in going),
                directories=tuple(directories),
                run_directories=tuple(members),
                last_event=_last_event(tree, goes),
                last_written=max((entry.mtime for entry in entries if entry.regular), default=0.0),
            )
        )
    return Scan(source, tree, sorted(candidates, key=lambda c: c.name), problems)


def _groups(by_directory: dict[str, str], root: str, sep: str) -> dict[str, list[str]]:
    """Run directories grouped under the outermost run directory above them (the root run stays alone)."""
    directories = set(by_directory)
    groups: dict[str, list[str]] = {}
    for directory in sorted(directories, key=lambda name: name.count(sep)):
        top = directory
        parent = directory
        while directory != root and sep in parent:
            parent = parent.rsplit(sep, 1)[0]
            if not inside(parent, root, sep) or parent == root:
                break
            if parent in directories:
                top = parent
        groups.setdefault(top, []).append(directory)
    return groups


def _relative(directory: str, root: str, sep: str) -> str:
    if directory == root:
        return "."
    return directory[len(root.rstrip(sep)) + 1 :].replace(sep, "/")


def _root_files(
    listing: Listing, root: str, opener: Callable[[str], IO[bytes]] | None, problems: list[str]
) -> tuple[list[Entry], list[str], set[str]]:
    """The root run's files: those directly in the log directory, and the projector files its config names."""
    projector = _projector_files(listing, root, opener, problems)
    entries = list(listing.directories[root])
    directories = {root}
    for directory, found in listing.directories.items():
        if directory != root:
            named = [entry for entry in found if entry.path in projector]
            entries += named
            if named:
                directories.add(directory)
    return entries, sorted(directories), projector


def _projector_files(
    listing: Listing, run_directory: str, opener: Callable[[str], IO[bytes]] | None, problems: list[str]
) -> set[str]:
    """The paths of the run's projector configs and of the files they name (none if a config cannot be read:
    then all of them stay)."""
    configs = [
        listing.join(directory, CONFIG_FILE)
        for directory in (run_directory, listing.join(run_directory, *PLUGIN_ASSETS_DIR.split("/")))
        if any(entry.name == CONFIG_FILE and entry.regular for entry in listing.directories.get(directory, ()))
    ]
    if not configs:
        return set()
    try:
        embeddings = read_projector(run_directory, opener)
    except ProjectorError as error:
        problems.append(f"{error}: the projector files of {run_directory} stay")
        return set()
    named = (
        path
        for ref in embeddings
        for path in (ref.tensor_path, ref.metadata_path, ref.sprite_path, ref.bookmarks_path)
        if path is not None
    )
    return {*configs, *(_normal(path, listing.sep) for path in named)}


def _normal(path: str, sep: str) -> str:
    return os.path.normpath(path) if sep == os.sep and "://" not in path else path


def _opener(tree: Tree) -> Callable[[str], IO[bytes]] | None:
    if isinstance(tree, RemoteTree):
        fs = tree.fs
        return lambda path: fs.open(path, "rb")  # type: ignore[no-any-return]
    return None  # the local disk


def _last_event(tree: Tree, files: Iterable[Entry]) -> float | None:
    times = [
        last_wall_time(partial(tree.read, entry.path), entry.size)
        for entry in files
        if is_event_file(entry.name) and entry.size > 0
    ]
    found = [time for time in times if time is not None]
    return max(found) if found else None
