"""A dozen information needs written for the demo collection (Python's own documentation).

Each need reads like a TREC topic: a short title (the query a person would type), a one-sentence
description, and a narrative telling the annotator what counts as relevant. They were written for
the documents :mod:`pooljudge.annotate.demo.corpus` collects, so every need has relevant documents
in it and
also near misses (a module that only mentions the subject) that make judging worth doing.
"""

from __future__ import annotations

from typing import NamedTuple

import pandas as pd

__all__ = ["INFORMATION_NEEDS", "InformationNeed", "topics_frame"]


class InformationNeed(NamedTuple):
    id: str
    title: str
    description: str
    narrative: str


INFORMATION_NEEDS: tuple[InformationNeed, ...] = (
    InformationNeed(
        "101", "exception handling and cleanup",
        "How do I catch exceptions and make sure clean-up code always runs?",
        "Relevant: explanations of try/except/finally, raising and chaining exceptions, or context "
        "managers and the with statement used for clean-up. Not relevant: modules that merely "
        "list the exceptions they raise.",
    ),
    InformationNeed(
        "102", "string formatting",
        "How are values formatted into strings (format specifications, f-strings, templates)?",
        "Relevant: the format specification mini-language, str.format, f-strings, %-formatting or "
        "string templates. Documents about parsing strings or encodings are not relevant.",
    ),
    InformationNeed(
        "103", "http client requests",
        "How can a program fetch a web page or call an HTTP API?",
        "Relevant: modules or sections for opening URLs, sending HTTP requests, handling "
        "responses, cookies or URL parsing for requests. HTTP servers alone are marginal; "
        "non-HTTP protocols are not relevant.",
    ),
    InformationNeed(
        "104", "sending and parsing email",
        "Which tools send email messages or parse received mail?",
        "Relevant: SMTP clients, mailbox access (IMAP, POP), parsing MIME messages and encoding "
        "headers or bodies for mail. General text encodings without mail context are not relevant.",
    ),
    InformationNeed(
        "105", "serialize python objects to files",
        "How do I save Python objects to disk and load them back later?",
        "Relevant: pickle, shelve, json, plist or dbm-style persistence, including their security "
        "caveats. Documents about in-memory copying are not relevant.",
    ),
    InformationNeed(
        "106", "random numbers and statistics",
        "How do I generate random values and compute summary statistics?",
        "Relevant: pseudo-random generators and distributions, secure random tokens, means, "
        "medians, variance. Hashing and UUIDs are marginal at best.",
    ),
    InformationNeed(
        "107", "debugging and profiling code",
        "Which tools step through a running program or measure where its time goes?",
        "Relevant: the debugger and its commands, tracing execution, timing small snippets, "
        "profilers. Logging configuration alone is not relevant.",
    ),
    InformationNeed(
        "108", "regular expression pattern matching",
        "How do I search text with regular expressions or shell-style patterns?",
        "Relevant: regular expression syntax and functions, and wildcard pattern matching of "
        "names. Simple substring methods are marginal.",
    ),
    InformationNeed(
        "109", "operator overloading special methods",
        "How does a class define its own behaviour for operators, comparison and attribute access?",
        "Relevant: special (dunder) methods, numeric and comparison protocols, attribute access "
        "hooks, and the operator module's functional forms. Ordinary method definitions are not.",
    ),
    InformationNeed(
        "110", "asynchronous programming coroutines",
        "How do async and await work and how is an event loop used?",
        "Relevant: coroutine syntax, awaitables, event loops and asynchronous I/O frameworks. "
        "Threads and processes without coroutines are not relevant; generators are marginal.",
    ),
    InformationNeed(
        "111", "unit testing",
        "How do I write and run automated tests for Python code?",
        "Relevant: test frameworks, test cases and assertions, doctests, test runners. Debuggers "
        "and the assert statement alone are marginal.",
    ),
    InformationNeed(
        "112", "command line argument parsing",
        "How does a script read options and arguments from the command line?",
        "Relevant: parsers for command-line options and arguments, and line-oriented command "
        "interpreters. Reading configuration files is not relevant.",
    ),
)


def topics_frame() -> pd.DataFrame:
    """Columns ``id, title, description, narrative`` in topic order."""
    return pd.DataFrame(INFORMATION_NEEDS, columns=list(InformationNeed._fields))
