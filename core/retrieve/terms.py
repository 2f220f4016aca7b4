"""Full-text scoring with the asking role's own statistics: every indexed row's words as a term-by-row count matrix.

LanceDB's full-text index scores with BM25 statistics over every row of the table. Asked for its best n rows
inside a role's filter, it chooses them by numbers that count rows the role may not see, so a hidden page full of
a word could change which of the role's rows came back. Here a role's filtered set is a mask over the rows (from
Lance's own evaluation of the role's filter, core/retrieve/search.py) and BM25 is computed over every row of that
set holding a query word, with document frequencies, corpus size and average length from that set alone: at any
size, nothing outside the filter moves a score or a rank.

Words are text.words' (the question is read the same way), so a row matches exactly when it holds a query word.
"""
from __future__ import annotations

import math
from array import array
from collections.abc import Iterable

import numpy as np

from core.catalog.text import words

K1, B = 1.5, 0.75


class TermIndex:
    """Word counts of a fixed list of texts (one per row, in row order), read once.

    At the 100k catalog (178,260 rows, 4.1 million words, 12,612 distinct) it holds 3.0 million (row, word) counts
    in 24 MB and is built in ~2 s after the texts are read into words (~2-3 s): the word lists themselves are not
    kept."""

    def __init__(self, texts: Iterable[str]):
        vocabulary: dict[str, int] = {}
        columns, starts = array("i"), array("q", [0])
        for text in texts:
            columns.extend(vocabulary.setdefault(w, len(vocabulary)) for w in words(text))
            starts.append(len(columns))
        self.lengths = np.diff(np.asarray(starts, dtype=np.int64))  # words a row, stopwords included
        # Each word's rows, ascending, and how often it occurs in each (compressed sparse columns, in numpy alone:
        # importing scipy.sparse was a twentieth of a cold `ask`): one sort of (word, row) keys.
        height = max(len(self.lengths), 1)
        keys = np.asarray(columns, dtype=np.int64) * height + np.repeat(np.arange(len(self.lengths)), self.lengths)
        keys.sort()
        first = np.ones(len(keys), dtype=bool)
        first[1:] = keys[1:] != keys[:-1]
        at = np.flatnonzero(first)
        word, rows = np.divmod(keys[at], height)
        self.rows = rows.astype(np.int32)
        self.counts = np.diff(np.append(at, len(keys))).astype(np.int32)
        self.indptr = np.searchsorted(word, np.arange(len(vocabulary) + 1))
        self.vocabulary = vocabulary

    def __len__(self) -> int:
        return len(self.lengths)

    def bm25(self, terms: list[str], within: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rows, scores): every row of `within` (a mask over the rows) holding one of `terms`, in row order, and its
        BM25 against `terms`. Statistics come from `within` alone: the corpus is its size, document frequencies and
        the average length are counted over its rows that hold a term."""
        found = []
        for t in terms:
            j = self.vocabulary.get(t)
            if j is None:
                continue
            lo, hi = self.indptr[j], self.indptr[j + 1]
            rows = self.rows[lo:hi]
            keep = within[rows]
            if keep.any():
                found.append((rows[keep], self.counts[lo:hi][keep]))
        if not found:
            return np.empty(0, dtype=np.int64), np.empty(0)
        holds = np.zeros(len(self.lengths), dtype=bool)  # cheaper than np.unique when a common word holds 50,000 rows
        for rows, _ in found:
            holds[rows] = True
        matched = np.flatnonzero(holds)
        avgdl = int(self.lengths[matched].sum()) / len(matched) or 1.0
        n = max(int(np.count_nonzero(within)), len(matched))
        score = np.zeros(len(self.lengths))
        for rows, tf in found:  # in the terms' order, as a score adds up term by term
            df = len(rows)
            weight = math.log(1 + (n - df + 0.5) / (df + 0.5))
            score[rows] += weight * tf * (K1 + 1) / (tf + K1 * (1 - B + B * self.lengths[rows] / avgdl))
        return matched, score[matched]
