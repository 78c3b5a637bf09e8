"""The log directories the command tests share with the suites of what the commands show (search, the server;
``logs`` is the root conftest's)."""

from tests.search.conftest import search_logdir
from tests.server.conftest import server

__all__ = ["search_logdir", "server"]
