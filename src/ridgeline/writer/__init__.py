"""The writing side: runs inside the training process, so it stays light and imports nothing heavy."""
