"""The index the server and the reading API read: every scalar in memory, everything else as references."""
