"""The rules of Anti-Monopoly: pure Python, no widgets, no file writes."""
