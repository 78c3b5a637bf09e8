"""The one error every part of search raises: a message for the user and where in their input it points."""

from __future__ import annotations

from rich.cells import cell_len


class SearchError(ValueError):
    """A pattern RE2 rejects, a query that does not parse, or a question that cannot be translated.

    ``position`` is the 0-based character offset in the user's input that the message is about (None when the
    problem is not at one place); the CLI draws a caret under it and ``/api/search`` returns it in its 400 body.
    """

    def __init__(self, message: str, position: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.position = position

    def caret(self, text: str) -> str:
        """The input, and under it a caret at ``position``, for a terminal (just the message without one)."""
        if self.position is None:
            return self.message
        column = min(max(self.position, 0), len(text))
        # Terminal cells, not characters: a CJK character takes two, so the caret must move two per character.
        return f"{self.message}\n  {text}\n  {' ' * cell_len(text[:column])}^"
