"""Importer module that fails on import (its dependency is not installed)."""

import trajscope_dependency_that_is_not_installed  # noqa: F401


class BrokenImporter:
    def sniff(self, head: bytes, path: object) -> bool:
        return True
