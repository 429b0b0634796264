"""The server's layout holds (issue: the table server, readable): no two of its modules import each
other, directly or through others (typing-only imports count: a circle there is a circle a reader
follows), and no module of ours drives libpq itself (the database is reached through psycopg's and
aiosqlite's public APIs). The import graph is grimp's (import-linter's engine)."""

from __future__ import annotations

import ast
from pathlib import Path

import grimp

import tapete

SRC = Path(tapete.__file__).parent


def test_no_import_circle_among_the_servers_modules() -> None:
    graph = grimp.build_graph("tapete")
    server = sorted(m for m in graph.modules if m.startswith("tapete.server"))
    circles = []
    for importer in server:
        for imported in graph.find_modules_directly_imported_by(importer):
            if not imported.startswith("tapete.server") or imported == importer:
                continue
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back is not None:
                circles.append((importer, *back))
    assert not circles, f"import circles among the server's modules: {circles}"


def test_no_module_of_ours_drives_libpq() -> None:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            if any(
                n in ("psycopg.pq", "psycopg_c", "psycopg_binary") or n.startswith("psycopg.pq.")
                for n in names
            ):
                found.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert not found, f"modules that use libpq's binding directly: {found}"
