#!/usr/bin/env python3
"""No function in engine/ or cli/ longer than 80 lines (issue 42, point 9).

A function's length is what universal-ctags says of it: the lines from the
one its tag starts on to its `end:` field, both counted (end - line + 1), so
the signature, the braces, blank lines and comments inside all count. ctags
is asked for function definitions only (--c++-kinds=f: no prototypes, no
members); a lambda it reports as a function of its own (`__anon...`) counts as
it is, and a lambda's lines count in the function that holds it too.

The one exception is a declarative table (a long list of entries, no logic
between them), named in ALLOWED below with the reason it stays whole. An
entry of ALLOWED that names no function over the limit any more is reported
too, so that the list does not outlive what it excuses.

docs/architecture.md ("Measured: function length and locks") says the same.

Needs universal-ctags (Debian: universal-ctags; scripts/install-deps.sh).

Usage: scripts/check-function-length.py [ROOT]
       (exit 0: none too long, 1: some are, 2: ctags cannot be run)
"""
import subprocess
import sys
from pathlib import Path

LIMIT = 80
FOLDERS = ("engine", "cli")
CTAGS = ["ctags", "--sort=no", "--c++-kinds=f", "--fields=+ne", "--output-format=u-ctags", "-f", "-", "-R"]

# (file, function) -> why it may be longer than LIMIT, one line each.
# Declarative tables only: a function with logic in it is split instead.
# None today: a table kept as data (a constant array, not a function that
# fills one) is no function to ctags and needs no entry.
ALLOWED = {
}


def tag_fields(line):
    """One u-ctags line -> (name, file, {field: value}); None for a pseudo-tag.

    The pattern between the file and ';"' may hold anything, so the line is
    cut at its last ';"<TAB>': the name and file come before it (neither holds
    a tab: u-ctags escapes them), the kind and the key:value fields after it.
    """
    if line.startswith("!_"):
        return None
    head, sep, tail = line.rstrip("\n").rpartition(';"\t')
    if not sep:
        return None
    name, path = head.split("\t", 2)[:2]
    fields = {}
    for item in tail.split("\t")[1:]:
        key, colon, value = item.partition(":")
        if colon:
            fields[key] = value
    return name, path, fields


def function_lengths(root):
    """Every function ctags finds under FOLDERS: (file, line, name, lines)."""
    try:
        run = subprocess.run(CTAGS + list(FOLDERS), cwd=root, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        print("check-function-length: ctags is not installed (Debian: universal-ctags; "
              "scripts/install-deps.sh installs it)", file=sys.stderr)
        sys.exit(2)
    if run.returncode != 0:
        print(f"check-function-length: ctags failed ({run.returncode}); universal-ctags is needed:\n"
              f"{run.stderr}", file=sys.stderr)
        sys.exit(2)
    found = []
    for line in run.stdout.splitlines():
        tag = tag_fields(line)
        if tag is None:
            continue
        name, path, fields = tag
        if "line" not in fields or "end" not in fields:
            print(f"check-function-length: ctags gave no line or end for {path} {name}", file=sys.stderr)
            sys.exit(2)
        start, end = int(fields["line"]), int(fields["end"])
        found.append((path, start, name, end - start + 1))
    return found


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent).resolve()
    functions = function_lengths(root)
    too_long = [f for f in functions if f[3] > LIMIT and (f[0], f[2]) not in ALLOWED]
    excused = {(f[0], f[2]) for f in functions if f[3] > LIMIT}
    stale = [key for key in ALLOWED if key not in excused]
    if not too_long and not stale:
        print(f"check-function-length: {len(functions)} functions in {' and '.join(FOLDERS)}/, "
              f"none over {LIMIT} lines ({len(ALLOWED)} declarative tables allowed)")
        return 0
    for path, line, name, lines in sorted(too_long, key=lambda f: (-f[3], f[0], f[1])):
        print(f"{path}:{line} {name} {lines} lines")
    for path, name in stale:
        print(f"{path} {name}: in ALLOWED but not over {LIMIT} lines (any more): take it out")
    print(f"check-function-length: {len(too_long)} functions over {LIMIT} lines, {len(stale)} stale ALLOWED "
          "entries; split a long function (or, for a declarative table only, name it in ALLOWED with its reason)",
          file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
