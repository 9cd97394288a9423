"""autojudge-base and autojudge-evaluate import offline: autojudge-base fetches NLTK's English
stop words when imported (for its document chunker, which no test uses); an empty list in a
temporary NLTK data folder stands in, so the import neither reaches the network nor fails."""

from __future__ import annotations

from pathlib import Path


def offline_nltk(folder: Path) -> None:
    """Put an empty English stop-word list and a punkt folder under ``folder`` and put it first
    on NLTK's data path."""
    import nltk

    (folder / "corpora" / "stopwords").mkdir(parents=True, exist_ok=True)
    (folder / "corpora" / "stopwords" / "english").write_text("")
    (folder / "tokenizers" / "punkt").mkdir(parents=True, exist_ok=True)
    nltk.data.path.insert(0, str(folder))
