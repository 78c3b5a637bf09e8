"""Writing what was read out to files other tools read: CSV, JSON lines, Parquet."""
