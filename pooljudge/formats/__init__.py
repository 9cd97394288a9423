"""File formats: the only code that reads or writes files."""
