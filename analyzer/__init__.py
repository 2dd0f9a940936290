"""TrajScope analysis core: schema, loading, detection, judge, metrics and export.

This package is pure Python. It never imports Qt, ``ui`` or ``plugins`` (checked by
import-linter contracts in ``pyproject.toml``).
"""

__version__ = "0.1.0"
