"""Pure functions over numpy arrays: no I/O, no HTTP; used by the server, the CLI and the reading API."""
