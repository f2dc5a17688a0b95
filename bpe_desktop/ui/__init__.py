"""The desktop application: widgets, table models, workers and plots (everything Qt).

PySide6 is imported before pyqtgraph so that pyqtgraph binds to it rather than to any
other Qt binding that happens to be installed.
"""

import os

os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

import PySide6.QtCore  # noqa: E402,F401  (must come before pyqtgraph)
