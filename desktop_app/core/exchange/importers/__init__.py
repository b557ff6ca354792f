"""Readers for other tools' result files; each turns one file into an :class:`ImportedRun`."""
