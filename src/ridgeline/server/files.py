"""Where the built web UI is and how its files are named and cached: what the static route
(:mod:`ridgeline.server.static`) and the front that serves before the app exists (:mod:`ridgeline.server.front`)
share. Imports nothing of the web stack.
"""

from __future__ import annotations

from pathlib import Path

STATIC_DIR = Path(__file__).resolve().parent.parent / "_static"
IMMUTABLE = "public, max-age=31536000, immutable"


def resolve(root: Path, path: str) -> Path | None:
    """The file ``path`` names inside ``root`` (already resolved), or None when it is missing or outside."""
    if "\x00" in path or "\\" in path:
        return None
    candidate = (root / path.lstrip("/")).resolve()
    if candidate != root and root not in candidate.parents:
        return None
    return candidate if candidate.is_file() else None


def cache_control(path: str) -> str:
    """Content-hashed files (Vite's ``assets/``) are cached for good; anything else is revalidated."""
    return IMMUTABLE if path.startswith("assets/") else "no-cache"


def escapes(path: str) -> bool:
    """Whether the path tries to climb out of the build folder (answered 404, not with the index page)."""
    return ".." in path.replace("\\", "/").split("/") or "\x00" in path
