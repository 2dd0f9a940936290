"""Loading trace files into frames, partial-success."""

from analyzer.loading.cache import ParsedCache
from analyzer.loading.loader import LoadResult, claim, iter_files, load
from analyzer.loading.read import read_file

__all__ = ["LoadResult", "ParsedCache", "claim", "iter_files", "load", "read_file"]
