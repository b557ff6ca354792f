"""The desktop app: the only package that imports QtWidgets, qasync and pyqtgraph.

pyqtgraph and qasync each pick a Qt binding by their own order (PyQt first); this package is
imported before either of them, so it tells both to use PySide6.
"""

import os

os.environ.setdefault("QT_API", "pyside6")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
