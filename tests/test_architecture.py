"""The building's rules, checked over the code (docs/architecture.md, "The dependency rule").

- The import contracts of ``[tool.importlinter]`` in pyproject.toml (the same ones ``make test``
  runs with ``lint-imports``) hold, every module of ``pooljudge`` and ``annotate`` has a floor,
  and the contracts catch a violation planted in a temporary skeleton of the packages.
- SQL only in ``annotate/store/``; files opened only in ``pooljudge/formats/``; page scripts
  call only ``pooljudge.annotate.ui``; nothing in the repository refers to a file outside it.

Each AST rule has negative controls: a snippet that breaks it is reported, and the usual
look-alikes (``pa.scalar``, ``run.execute()``, ``frame.to_csv(handle)``) are not.
"""

from __future__ import annotations

import ast
import fnmatch
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# the source folders and the import names they install as
FOLDERS = {"pooljudge": "pooljudge", "pooling": "pooljudge.pooling", "metrics": "pooljudge.metrics",
           "annotate": "pooljudge.annotate"}
PACKAGES = tuple(FOLDERS)
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
CONTRACTS = CONFIG["tool"]["importlinter"]["contracts"]


def _lint_imports(folder: Path, config: Path | None = None) -> tuple[int, set[str], str]:
    """Run lint-imports on ``config`` (default ``folder/pyproject.toml``) with ``folder`` first on
    the import path: (exit status, ids of the broken contracts, the whole output)."""
    command = [str(Path(sys.executable).with_name("lint-imports")), "--no-cache", "--no-logo",
               str(config or folder / "pyproject.toml")]
    env = {**os.environ, "PYTHONPATH": str(folder), "COLUMNS": "400"}
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    output = done.stdout + done.stderr
    broken = {c["id"] for c in CONTRACTS if re.search(rf"^{re.escape(c['name'])} BROKEN$",
                                                       output, re.MULTILINE)}
    return done.returncode, broken, output


def _layer_modules() -> list[str]:
    """Every module the floors contract names (optional ones without their parentheses)."""
    (floors,) = (c for c in CONTRACTS if c["id"] == "floors")
    names = []
    for layer in floors["layers"]:
        names += [name.strip().strip("()") for name in re.split(r"[|:]", layer)]
    return names


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The project installed as a user gets it (no editable finder): grimp needs
    ``pooljudge.metrics`` to sit inside ``pooljudge/`` on disk."""
    target = tmp_path_factory.mktemp("site")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--target", str(target), str(ROOT)],
                   check=True, capture_output=True, timeout=300)
    return target


def test_import_contracts_hold(installed):
    status, broken, output = _lint_imports(installed, ROOT / "pyproject.toml")
    assert (status, broken) == (0, set()), output


def _children(folder: Path, name: str) -> set[str]:
    """The modules and packages directly in ``folder`` (installed as ``name``)."""
    return {f"{name}.{path.stem}" for path in folder.iterdir()
            if (path.suffix == ".py" and path.stem != "__init__")
            or (path / "__init__.py").is_file()}


def test_every_module_has_a_floor():
    """A new module of pooljudge or annotate must be given a floor in the floors contract; a
    package whose modules are named one by one (the ground, ``pooljudge.ground``) has them
    checked instead."""
    named = set(_layer_modules())
    children = {child for folder in ("pooljudge", "annotate")
                for child in _children(ROOT / folder, FOLDERS[folder])}
    children -= {"pooljudge.annotate", "pooljudge.metrics", "pooljudge.pooling"}
    for package in sorted(children - named):
        inside = {module for module in named if module.startswith(f"{package}.")}
        if inside:  # named module by module: every one of its modules must be
            children |= _children(ROOT.joinpath(*package.split(".")), package)
            children.discard(package)
    assert children - named == set()
    assert {"pooljudge.pooling", "pooljudge.metrics"} <= named


def _skeleton(folder: Path, planted: tuple[str, str] | list[tuple[str, str]] | None) -> None:
    """An empty package for every module the contracts name, the repository's pyproject.toml,
    and, when ``planted`` is (importer, imported) or a list of them, those imports (an importer
    the contracts do not name is made too)."""
    for name in (*_layer_modules(), "pooljudge.annotate.store.engine", "pooljudge.formats._columns",
                 "pooljudge.formats.columnar", "pooljudge.kernels._keys"):
        parts = name.split(".")
        folder.joinpath(*parts).mkdir(parents=True, exist_ok=True)
        for depth in range(1, len(parts) + 1):
            folder.joinpath(*parts[:depth], "__init__.py").touch()
    (folder / "pyproject.toml").write_bytes((ROOT / "pyproject.toml").read_bytes())
    for importer, imported in [planted] if isinstance(planted, tuple) else planted or []:
        parts = importer.split(".")
        folder.joinpath(*parts).mkdir(parents=True, exist_ok=True)
        for depth in range(1, len(parts)):
            folder.joinpath(*parts[:depth], "__init__.py").touch()
        folder.joinpath(*parts, "__init__.py").write_text(f"import {imported}\n")


PLANTED = [
    pytest.param(None, set(), id="clean-skeleton"),
    pytest.param(("pooljudge.pooling", "pooljudge.annotate.records"),
                 {"floors", "pure-computation"},
                 id="pooling-imports-annotate"),
    pytest.param(("pooljudge.metrics", "sqlalchemy"), {"pure-computation"},
                 id="metrics-imports-sqlalchemy"),
    pytest.param(("pooljudge.formats", "streamlit"), {"pure-computation"},
                 id="formats-imports-streamlit"),
    pytest.param(("pooljudge.pooling", "pooljudge.metrics"), {"floors"},
                 id="pooling-imports-metrics"),
    pytest.param(("pooljudge.formats", "pooljudge.cli"), {"floors"}, id="formats-imports-cli"),
    pytest.param(("pooljudge.annotate.store", "pooljudge.annotate.agreement"), {"floors"},
                 id="store-imports-a-service"),
    pytest.param(("pooljudge.annotate.records", "pooljudge.annotate.keymap"), {"floors"},
                 id="plain-values-import-each-other"),
    pytest.param(("pooljudge.annotate.ui", "pooljudge.formats._columns"), {"private-modules"},
                 id="private-format-module-from-outside"),
    pytest.param(("pooljudge.formats.trec", "pooljudge.kernels._keys"), {"private-modules"},
                 id="private-kernel-module-from-formats"),
    pytest.param(("pooljudge.kernels", "pooljudge.formats"), {"floors"},
                 id="kernels-import-formats"),
    pytest.param(("pooljudge.kernels", "sqlalchemy"), {"pure-computation"},
                 id="kernels-import-sqlalchemy"),
    pytest.param(("pooljudge.cli", "pooljudge.annotate.store.engine"), {"store-front-door"},
                 id="store-submodule-from-outside"),
    pytest.param([("pooljudge.metrics.join", "pooljudge.metrics.prels"),
                  ("pooljudge.metrics.prels", "pooljudge.metrics.join")], {"acyclic"},
                 id="sibling-modules-import-each-other"),
    pytest.param([("pooljudge.pooling.strategies", "pooljudge.pooling.adaptive"),
                  ("pooljudge.pooling.adaptive.walk", "pooljudge.pooling.strategies")], {"acyclic"},
                 id="a-cycle-through-a-sibling-package"),
]


@pytest.mark.parametrize(("planted", "expected"), PLANTED)
def test_contracts_catch_a_planted_import(tmp_path, planted, expected):
    _skeleton(tmp_path, planted)
    status, broken, output = _lint_imports(tmp_path)
    assert (broken, status == 0) == (expected, not expected), output


def test_page_scripts_call_only_the_ui():
    """The page scripts (no package, so import-linter cannot see them) stay thin."""
    for page in sorted((ROOT / "annotate" / "app_pages").glob("*.py")):
        tree = ast.parse(page.read_text(encoding="utf-8"))
        imported = {node.module if isinstance(node, ast.ImportFrom) else alias.name
                    for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)
                    for alias in node.names}
        allowed = ("pooljudge.annotate.ui", "__future__")
        assert {m for m in imported if m not in allowed} == set(), page


@dataclass(frozen=True)
class Finding:
    line: int
    scope: str  # the enclosing function or class (dotted), "" at module level
    what: str


@dataclass(frozen=True)
class Imports:
    origins: dict[str, str]  # local name -> what it is: "numpy" for `import numpy as np`
    local: frozenset[str]  # names bound by an import, a def or a class

    @classmethod
    def of(cls, tree: ast.AST) -> Imports:
        origins: dict[str, str] = {}
        local: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    bound = alias.asname or alias.name.split(".")[0]
                    origins[bound] = alias.name if alias.asname else bound
            elif isinstance(node, ast.ImportFrom):
                module = "." * node.level + (node.module or "")
                origins.update({a.asname or a.name: f"{module}.{a.name}" for a in node.names})
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                local.add(node.name)
        return cls(origins, frozenset(local | set(origins)))

    def origin(self, node: ast.expr) -> str | None:
        """What ``node`` was imported as, when it is a name bound by an import."""
        return self.origins.get(node.id) if isinstance(node, ast.Name) else None


def _scoped(tree: ast.AST) -> Iterator[tuple[ast.AST, str]]:
    """Every node with the dotted name of the functions and classes around it."""
    stack: list[tuple[ast.AST, str]] = [(tree, "")]
    while stack:
        node, scope = stack.pop()
        yield node, scope
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            scope = f"{scope}.{node.name}" if scope else node.name
        stack.extend((child, scope) for child in ast.iter_child_nodes(node))


def _findings(source: str, rule) -> list[Finding]:
    tree = ast.parse(source)
    imports = Imports.of(tree)
    found = [Finding(node.lineno, scope, what) for node, scope in _scoped(tree)
             if (what := rule(node, imports))]
    return sorted(found, key=lambda f: (f.line, f.what))


DB_PACKAGES = ("sqlalchemy", "sqlmodel")
TYPE_ONLY = {("sqlalchemy", "Engine"), ("sqlmodel", "Session"), ("sqlalchemy.orm", "Session")}
SQL_METHODS = {"exec", "execute", "scalars", "scalar"}
SQL_BUILDERS = {"select", "text"}


def _is_db(module: str) -> bool:
    return module.split(".")[0] in DB_PACKAGES


def _callee(call: ast.Call, imports: Imports) -> tuple[str, str] | None:
    """(receiver, name) of a call: the receiver is what it was imported as (``numpy`` for
    ``np.save``, ``pandas`` for an imported ``read_csv``), "builtins" for a name neither imported
    nor defined, "<local>" for one defined in the module, "" for any other object."""
    func = call.func
    if isinstance(func, ast.Attribute):
        return imports.origin(func.value) or "", func.attr
    if not isinstance(func, ast.Name):
        return None
    if func.id in imports.origins:
        module, _, name = imports.origins[func.id].rpartition(".")
        return module, name
    return ("<local>" if func.id in imports.local else "builtins"), func.id


def sql_rule(node: ast.AST, imports: Imports) -> str | None:
    """SQL outside the store: any import of SQLAlchemy or SQLModel but the type names Engine
    and Session (in annotations, never called); any call into them; a ``select(``/``text(``
    neither defined nor imported; ``x.exec|execute|scalars|scalar(statement)`` on an object
    that is not an imported module (``pa.scalar`` is pyarrow's; SQL always takes an argument)."""
    if isinstance(node, ast.Import):
        bad = [alias.name for alias in node.names if _is_db(alias.name)]
        return f"import {', '.join(bad)}" if bad else None
    if isinstance(node, ast.ImportFrom) and not node.level and _is_db(node.module or ""):
        bad = [a.name for a in node.names if (node.module, a.name) not in TYPE_ONLY]
        return f"from {node.module} import {', '.join(bad)}" if bad else None
    callee = _callee(node, imports) if isinstance(node, ast.Call) else None
    if callee is None:
        return None
    receiver, name = callee
    if _is_db(receiver):
        return f"{receiver}.{name}()"
    if receiver == "builtins" and name in SQL_BUILDERS:
        return f"{name}()"
    if receiver == "" and name in SQL_METHODS and node.args:
        return f".{name}(statement)"
    return None


TEXT_METHODS = {"read_text", "write_text", "read_bytes", "write_bytes"}
FRAME_READERS = {"read_csv", "read_json", "read_table", "read_parquet", "read_feather",
                 "read_excel", "read_fwf", "read_pickle"}
FRAME_WRITERS = {"to_csv", "to_json", "to_parquet", "to_feather", "to_excel", "to_pickle",
                 "savefig"}
NUMPY_FILES = {"load", "save", "savez", "savez_compressed", "loadtxt", "savetxt", "genfromtxt",
               "fromfile"}
TEMP_FILES = {"NamedTemporaryFile", "TemporaryFile", "SpooledTemporaryFile", "mkstemp"}
PATH_CALLS = {"Path", "PurePath", "str", "join", "joinpath", "with_name", "with_suffix", "fspath"}


def _identifier(node: ast.expr) -> str:
    return node.id if isinstance(node, ast.Name) else \
        node.attr if isinstance(node, ast.Attribute) else ""


def _path_like(node: ast.expr | None) -> bool:
    """A file name rather than an open handle: a string or f-string, ``folder / name``,
    ``Path(...)`` and the like, ``args.X`` (command-line values), or a name saying path."""
    if node is None:  # no destination: to_json() and to_csv() return the text
        return False
    if isinstance(node, ast.Constant | ast.JoinedStr):
        return isinstance(node, ast.JoinedStr) or isinstance(node.value, str)
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, ast.Div)
    if isinstance(node, ast.Call):
        return _identifier(node.func) in PATH_CALLS
    if isinstance(node, ast.Attribute) and _identifier(node.value) == "args":
        return True
    name = _identifier(node).lower()
    return "path" in name or "filename" in name or "file_name" in name


def _destination(call: ast.Call) -> ast.expr | None:
    if call.args:
        return call.args[0]
    keywords = {k.arg: k.value for k in call.keywords}
    return next((keywords[k] for k in ("path_or_buf", "path", "fname") if k in keywords), None)


def file_rule(node: ast.AST, imports: Imports) -> str | None:
    """A file opened outside pooljudge.formats: ``open(``, ``x.open(`` (not ``os.open``: file
    descriptors for locks and /dev/null, no data), ``read_text``/``write_text``/
    ``read_bytes``/``write_bytes``, pandas' ``read_*`` readers, ``to_csv``/``to_json``/
    ``savefig``... given a path (a handle is fine), numpy's file functions, temporary files.
    Calls into pooljudge.formats are that floor's own helpers."""
    callee = _callee(node, imports) if isinstance(node, ast.Call) else None
    if callee is None:
        return None
    receiver, name = callee
    if receiver.startswith("pooljudge.formats") or receiver == "<local>":
        return None
    if (name == "open" and receiver != "os") or name in TEXT_METHODS | FRAME_READERS:
        return f"{name}()" if receiver == "builtins" else f".{name}()"
    if name in FRAME_WRITERS and _path_like(_destination(node)):
        return f".{name}(path)"
    if (receiver == "numpy" and name in NUMPY_FILES) or (receiver == "tempfile"
                                                         and name in TEMP_FILES):
        return f"{receiver}.{name}()"
    return None


# Files read outside pooljudge.formats on purpose: (file, function) -> why.
FILE_EXCEPTIONS = {
    ("metrics/report_html.py", "render_page"):
        "reads report.css, a stylesheet shipped inside the package, never a user's file",
    ("annotate/demo/corpus.py", "_docstring"):
        "reads the source of Python's own modules for their docstrings (the demo corpus), "
        "not a file format of the project",
}


def _product_files(*, outside: str | None = None) -> Iterator[tuple[str, str]]:
    """(path relative to the repository, source) of every product module not under
    ``outside``, the page scripts included."""
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if outside is None or not relative.startswith(outside):
                yield relative, path.read_text(encoding="utf-8")


def _violations(rule, *, outside: str, exceptions: dict) -> list[str]:
    return [f"{relative}:{f.line} {f.scope or '<module>'}: {f.what}"
            for relative, source in _product_files(outside=outside)
            for f in _findings(source, rule)
            if (relative, f.scope) not in exceptions]


def test_sql_only_in_the_store():
    violations = _violations(sql_rule, outside="annotate/store/", exceptions={})
    assert violations == [], "\n".join(violations)


def test_files_only_in_formats():
    violations = _violations(file_rule, outside="pooljudge/formats/",
                             exceptions=FILE_EXCEPTIONS)
    assert violations == [], "\n".join(violations)


def test_file_exceptions_are_still_needed():
    """An exception whose code moved or changed is removed, not kept as a silent licence."""
    used = {(relative, f.scope) for relative, source in _product_files(outside="pooljudge/formats/")
            for f in _findings(source, file_rule)}
    assert set(FILE_EXCEPTIONS) - used == set()


SQL_CASES = [
    ("session.exec(select(Campaign))", [".exec(statement)", "select()"]),
    ("connection.execute(text('SELECT 1'))", [".execute(statement)", "text()"]),
    ("n = session.scalar(query)\nrows = session.scalars(query)",
     [".scalar(statement)", ".scalars(statement)"]),
    ("import sqlalchemy as sa\nsa.select(Pair)", ["import sqlalchemy", "sqlalchemy.select()"]),
    ("from sqlmodel import select\nselect(Pair)", ["from sqlmodel import select",
                                                   "sqlmodel.select()"]),
    ("from sqlmodel import Session, select", ["from sqlmodel import select"]),
    ("from sqlmodel import Session\nwith Session(engine) as s:\n    pass",
     ["sqlmodel.Session()"]),
    ("from sqlalchemy.exc import IntegrityError", ["from sqlalchemy.exc import IntegrityError"]),
    ("from sqlalchemy import Engine\ndef f(engine: Engine) -> None:\n    pass", []),
    ("import pyarrow as pa\npa.scalar('\\t', pa.large_string())", []),
    ("run.execute()\nst.text('hello')\nfrom x import text\ntext('y')", []),
    ("def select(rows):\n    return rows\nselect([1])", []),
]


@pytest.mark.parametrize(("source", "expected"), SQL_CASES, ids=[c[0] for c in SQL_CASES])
def test_sql_rule(source, expected):
    assert [f.what for f in _findings(source, sql_rule)] == expected


FILE_CASES = [
    ("with open(path) as f:\n    pass", ["open()"]),
    ("import gzip\ngzip.open(name)", [".open()"]),
    ("Path(p).write_text(body)\ndata = p.read_bytes()", [".write_text()", ".read_bytes()"]),
    ("import pandas as pd\npd.read_csv(links, sep='\\t')", [".read_csv()"]),
    ("frame.to_csv('out.tsv')\nframe.to_csv(out_path)\nframe.to_csv(folder / 'x.tsv')",
     [".to_csv(path)"] * 3),
    ("figure.savefig(args.output)", [".savefig(path)"]),
    ("import numpy as np\nnp.save(name, array)", ["numpy.save()"]),
    ("import tempfile\ntempfile.NamedTemporaryFile('w')", ["tempfile.NamedTemporaryFile()"]),
    ("frame.to_csv(handle, sep='\\t')\nfigure.savefig(buffer)\ntext = frame.to_json()", []),
    ("import os\nfd = os.open(os.devnull, os.O_WRONLY)", []),
    ("from pooljudge.formats import files\nfiles.read_text(path, 'key map')", []),
    ("from pooljudge.formats.files import read_text\nread_text(path, 'key map')", []),
    ("from gzip import open\nopen(name)\nfrom pandas import read_csv\nread_csv(p)",
     [".open()", ".read_csv()"]),
    ("def open(name):\n    return name\nopen('x')", []),
]


@pytest.mark.parametrize(("source", "expected"), FILE_CASES, ids=[c[0] for c in FILE_CASES])
def test_file_rule(source, expected):
    assert [f.what for f in _findings(source, file_rule)] == expected


def test_findings_name_their_function():
    source = "class Report:\n    def save(self):\n        open('x')\n"
    assert _findings(source, file_rule) == [Finding(3, "Report.save", "open()")]


# Modules docs/architecture.md names as a group rather than one by one.
DOCUMENTED_AS_A_GROUP = ("pooljudge/cli/*_cmd.py", "annotate/app_pages/*.py",
                         "annotate/store/migrations/versions/*.py", "**/__init__.py")


def test_the_architecture_page_names_every_module():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    unnamed = [relative for relative, _ in _product_files()
               if f"{Path(relative).name}`" not in text
               and not any(Path(relative).match(glob) for glob in DOCUMENTED_AS_A_GROUP)]
    assert unnamed == [], "not on docs/architecture.md: " + ", ".join(unnamed)


# Names of files outside the repository (the team's shared notes and data, the workspace),
# assembled from parts so that this file does not cite them itself.
OUTSIDE_REFERENCES = tuple("".join(parts) for parts in (
    ("DESIGN", ".md"), ("STYLE", ".md"), ("../", "shared"), ("/", "work/")))


def _repository_text() -> Iterator[tuple[str, str]]:
    """(relative path, text) of every text file of the repository, the CI script included;
    what .gitignore names (the virtual environment, caches, demo and benchmark output) is not
    the repository's."""
    lines = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    ignored = [line.strip("/") for line in lines if line and not line.startswith("#")]
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in (".git", ".grimp_cache", ".import_linter_cache")
                   and not any(fnmatch.fnmatch(d, pattern) for pattern in ignored)]
        for name in files:
            path = Path(folder) / name
            if name == ".git" or any(fnmatch.fnmatch(name, pattern) for pattern in ignored):
                continue  # a worktree's .git file names where its repository lives
            try:
                yield path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue  # pictures, gzip fixtures


def test_nothing_refers_to_a_file_outside_the_repository():
    cited = [f"{relative}: {needle}" for relative, text in _repository_text()
             for needle in OUTSIDE_REFERENCES if needle in text]
    assert cited == []


def _command_test_files() -> dict[str, list[str]]:
    """Each top-level command of the parser (``pooljudge.cli.COMMANDS``) with the files of
    ``tests/cli/`` that test it: ``test_<command>.py`` or ``test_<command>_<aspect>.py``
    (``-`` written ``_``), a file going to the longest command its name starts with."""
    from pooljudge.cli import COMMANDS

    stems = {name.replace("-", "_"): name for name in COMMANDS}
    found: dict[str, list[str]] = {name: [] for name in COMMANDS}
    for path in sorted((ROOT / "tests" / "cli").glob("test_*.py")):
        rest = path.stem.removeprefix("test_")
        owners = [stem for stem in stems if rest == stem or rest.startswith(f"{stem}_")]
        if owners:
            found[stems[max(owners, key=len)]].append(path.name)
    return found


def test_every_command_has_its_test_file():
    """One command, one test file: ``tests/cli/test_<command>*.py`` for every command of the
    parser, and every file there names a command (or ``pooljudge``, the program itself)."""
    found = _command_test_files()
    assert [name for name, files in found.items() if not files] == []
    owned = {name for files in found.values() for name in files}
    stray = [path.name for path in sorted((ROOT / "tests" / "cli").glob("test_*.py"))
             if path.name not in owned and not path.stem.startswith("test_pooljudge")]
    assert stray == []


def test_command_tests_live_in_tests_cli():
    """A command's tests are in tests/cli/, named by their command, not ``test_cli_*`` or
    ``test_*_cli`` elsewhere."""
    tests = ROOT / "tests"
    misplaced = [path.relative_to(ROOT).as_posix() for path in sorted(tests.rglob("*.py"))
                 if path.parent != tests / "cli"
                 and (path.stem.startswith("test_cli") or path.stem.endswith("_cli"))]
    assert misplaced == []
