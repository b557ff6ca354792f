"""Comparison summaries and exports (may use QtGui for PDF painting, never QtWidgets)."""
