#!/usr/bin/env python3
"""The trace of one encode in docs/architecture.md is true and short (issue 42, point 9).

The trace ("## The trace of one encode") is a table of steps, each naming
the engine/ file a reader opens for it and, in brackets, the helpers the
step calls. This script checks what the table claims against the code:

- every step's file exists under engine/, and the names it quotes are
  there: a `Class::member` is defined in that file; a bare `Name` (a
  class, a function) appears in it or in its header;
- every helper (`room/file.*`, `room/file.hpp`) matches a file;
- the steps pass at most MOST distinct files, and the number the text
  after the table gives ("passes **N**") is the number counted.

So the trace cannot quietly go stale when code moves, and the count is
measured, not typed.

Usage: scripts/check-trace.py [ROOT]   (exit 0: true, 1: not)
"""
import re
import sys
from pathlib import Path

MOST = 8
SECTION = "## The trace of one encode"


def trace_rows(doc):
    text = doc.split(SECTION, 1)[1].split("\n## ", 1)[0]
    rows = [line for line in text.splitlines() if re.match(r"^\| \d+ \|", line)]
    return text, [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]


def step_file(cell):
    """'rung/rung.cpp (again)' -> 'rung/rung.cpp'."""
    return cell.split()[0]


def quoted_names(what):
    names = []
    for q in re.findall(r"`([^`]+)`", what):
        if "/" in q or "." in q or " " in q:
            continue  # a path, a file name or a phrase: nothing to look up
        names.extend(n.strip() for n in q.split(","))
    return [n for n in names if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)?", n)]


def name_problem(name, source, header):
    if "::" in name:
        if re.search(r"\b" + re.escape(name) + r"\s*\(", source):
            return None
        return f"`{name}` is not defined there"
    if re.search(r"\b" + re.escape(name) + r"\b", source + header):
        return None
    return f"`{name}` does not appear there or in its header"


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    doc = (root / "docs" / "architecture.md").read_text()
    if SECTION not in doc:
        print(f"check-trace: docs/architecture.md has no '{SECTION}'")
        return 1
    text, rows = trace_rows(doc)
    problems, files = [], []
    for row in rows:
        if len(row) != 4:
            problems.append(f"step {row[0]}: {len(row)} columns, not 4")
            continue
        number, what, file_cell, helpers = row
        rel = step_file(file_cell)
        path = root / "engine" / rel
        if not path.is_file():
            problems.append(f"step {number}: engine/{rel} does not exist")
            continue
        if rel not in files:
            files.append(rel)
        source = path.read_text()
        header_path = path.with_suffix(".hpp")
        header = header_path.read_text() if header_path.is_file() else ""
        for name in quoted_names(what):
            problem = name_problem(name, source, header)
            if problem:
                problems.append(f"step {number} (engine/{rel}): {problem}")
        for helper in re.findall(r"[a-z_/]+\.(?:\*|hpp|cpp)", helpers):
            if not list((root / "engine").glob(helper)):
                problems.append(f"step {number}: helper engine/{helper} matches no file")
    if not rows:
        problems.append("the trace has no steps")
    if len(files) > MOST:
        problems.append(f"the steps pass {len(files)} engine/ files, more than {MOST}: {', '.join(files)}")
    claimed = re.search(r"passes \*\*(\d+)\*\*", text)
    if not claimed:
        problems.append("the text after the table does not say how many files the trace passes ('passes **N**')")
    elif int(claimed.group(1)) != len(files):
        problems.append(f"the text says the trace passes {claimed.group(1)} files; the table names {len(files)}")
    for p in problems:
        print(f"check-trace: {p}")
    if problems:
        return 1
    print(f"check-trace: {len(rows)} steps in {len(files)} engine/ files (at most {MOST}): {', '.join(files)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
