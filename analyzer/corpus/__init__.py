"""A corpus on disk: runs, steps and analysis results as a Parquet dataset, opened lazily."""

from analyzer.corpus.store import Corpus, CorpusError, source_key, write_corpus

__all__ = ["Corpus", "CorpusError", "source_key", "write_corpus"]
