"""TrajScope desktop UI (PySide6 + pyqtgraph). Adapts ``analyzer``; holds no analysis logic."""
