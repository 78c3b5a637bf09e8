"""Log directory -> typed records. Never writes into a log directory."""
