"""The log directories the command tests share with the suites of what the commands show (search, the server)."""

from tests.search.conftest import search_logdir
from tests.server.conftest import logs, server

__all__ = ["logs", "search_logdir", "server"]
