#!/usr/bin/env python3
"""The rooms inside engine/ and the one way their includes point.

engine/ has one folder (a room) per stage of a run. A file in a room may
include the headers of its own room and of the rooms ALLOWED names for it,
and no other engine header; the table below is the one place that says
which, and it has no cycle (checked here too). docs/architecture.md
("Rooms inside engine/") draws it.

This check fails, naming each offending include with its file and line,
when:
  - an engine file includes a room ALLOWED does not name for its room;
  - an engine file lies outside the rooms (directly in engine/, or in a
    folder the table does not know), or includes an engine header by a
    path that is not engine/<room>/<file>, or one that does not exist;
  - an engine file includes cli/ (cli -> engine, never back), or a file in
    av/, gpu/ or mux/ includes engine/ or cli/;
  - a room's central header (CENTRAL) does not open with its comment, or
    that comment's "May include:" line names other rooms than ALLOWED.

Usage: scripts/check-rooms.py [ROOT]    (exit 0: clean, 1: a rule broken)
"""
import re
import sys
from pathlib import Path

# Rooms from the bottom up; each may include the rooms listed (all of them,
# not only its neighbours: no room reaches another through a third one).
ALLOWED = {
    "base": [],
    "media": ["base"],
    "check": ["base"],
    "plan": ["base", "media"],
    "source": ["base", "media"],
    "encode/backend": ["base", "media", "plan"],
    "encode/process": ["base", "media", "plan", "encode/backend"],
    "output": ["base", "media", "check", "plan", "source"],
    "schedule": ["base", "media", "plan", "source", "encode/backend"],
    "rung": ["base", "media", "check", "plan", "source", "encode/backend", "output", "schedule"],
    "encode": ["base", "media", "check", "plan", "source", "encode/backend", "output", "schedule", "rung"],
    "run": ["base", "media", "check", "plan", "source", "encode/backend", "encode/process", "output", "schedule",
            "rung", "encode"],
}

# The header that opens each room with the comment on its job and on what it
# may include ("// Room engine/<room>/: ..." ... "// May include: a, b.").
CENTRAL = {
    "base": "errors.hpp",
    "media": "audio_tracks.hpp",
    "check": "ladder_validator.hpp",
    "plan": "ladder_spec.hpp",
    "source": "decode_lanes.hpp",
    "encode/backend": "encoder_backend.hpp",
    "encode/process": "process_encoder.hpp",
    "output": "rung_finalizer.hpp",
    "schedule": "chunk_dispatcher.hpp",
    "rung": "rung.hpp",
    "encode": "encoder_worker.hpp",
    "run": "job.hpp",
}

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SOURCE_SUFFIXES = {".cpp", ".hpp", ".h", ".cc"}


def table_problems():
    problems = []
    for room, allowed in ALLOWED.items():
        for other in allowed:
            if other not in ALLOWED:
                problems.append(f"ALLOWED[{room!r}] names {other!r}, which is no room")
        if room in allowed:
            problems.append(f"ALLOWED[{room!r}] names the room itself")
        for other in allowed:  # what a room below may include, this one may too: the table says it all
            missing = [r for r in ALLOWED.get(other, []) if r not in allowed]
            if missing:
                problems.append(f"ALLOWED[{room!r}] names {other!r} but not what it may include: {', '.join(missing)}")
    # No cycle: rooms come off the table bottom first, each once all it may include is off.
    done, left = set(), dict(ALLOWED)
    while left:
        ready = [r for r, allowed in left.items() if all(o in done or o not in ALLOWED for o in allowed)]
        if not ready:
            problems.append("ALLOWED has a cycle among: " + ", ".join(sorted(left)))
            break
        for r in ready:
            done.add(r)
            del left[r]
    if set(CENTRAL) != set(ALLOWED):
        problems.append("CENTRAL and ALLOWED name different rooms")
    return problems


def room_of(rel):
    """engine/encode/process/x.cpp -> 'encode/process'; None when in no room."""
    folder = rel.parent.as_posix()
    if not folder.startswith("engine/"):
        return None
    room = folder[len("engine/"):]
    return room if room in ALLOWED else None


def included_room(path):
    """'engine/rung/rung.hpp' -> 'rung'; None when not engine/<room>/<file>."""
    parts = path.split("/")
    for n in (3, 2):  # the longest room first: encode/process before encode
        room = "/".join(parts[1:n])
        if len(parts) == n + 1 and room in ALLOWED:
            return room
    return None


def room_comment_problems(root):
    problems = []
    for room, header in CENTRAL.items():
        rel = f"engine/{room}/{header}"
        path = root / rel
        if not path.is_file():
            problems.append(f"{rel}: the central header of room {room} is missing")
            continue
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()[:12]
        if not any(line.startswith(f"// Room engine/{room}/:") for line in lines):
            problems.append(f"{rel}: does not open with the comment '// Room engine/{room}/: <its job>'")
            continue
        said = None
        for i, line in enumerate(lines):
            if line.startswith("// May include:"):
                text = line[len("// May include:"):]
                for more in lines[i + 1:]:  # the list may go on over more comment lines
                    if not more.startswith("//   "):
                        break
                    text += " " + more[2:]
                said = [r.strip() for r in text.strip().rstrip(".").split(",") if r.strip()]
                break
        if said is None:
            problems.append(f"{rel}: the room comment has no '// May include:' line")
        elif said != (ALLOWED[room] or ["no other room"]):
            want = ", ".join(ALLOWED[room]) or "no other room"
            problems.append(f"{rel}: the room comment says 'May include: {', '.join(said)}' "
                            f"but scripts/check-rooms.py allows: {want}")
    return problems


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent).resolve()
    problems = table_problems()
    checked = 0
    for top in ("engine", "av", "gpu", "mux"):
        for path in sorted((root / top).rglob("*")):
            if path.suffix not in SOURCE_SUFFIXES or not path.is_file():
                continue
            rel = path.relative_to(root)
            checked += 1
            room = room_of(rel) if top == "engine" else None
            if top == "engine" and room is None:
                problems.append(f"{rel.as_posix()}: in no room of engine/ (rooms: {', '.join(ALLOWED)})")
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            for number, line in enumerate(text.splitlines(), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                inc = m.group(2)
                where = f"{rel.as_posix()}:{number}: #include {m.group(1)}{inc}{'>' if m.group(1) == '<' else chr(34)}"
                if top != "engine":
                    if inc.startswith(("engine/", "cli/")):
                        problems.append(f"{where}: {top}/ may not include {inc.split('/')[0]}/ "
                                        "(cli -> engine -> {gpu, mux} -> av)")
                    continue
                if inc.startswith("cli/"):
                    problems.append(f"{where}: engine/ may not include cli/ (cli -> engine, never back)")
                    continue
                if m.group(1) == '"' and "/" not in inc:
                    problems.append(f"{where}: name an engine header by its room: engine/<room>/<file>")
                    continue
                if not inc.startswith("engine/"):
                    continue
                target = included_room(inc)
                if target is None:
                    problems.append(f"{where}: not a path engine/<room>/<file> (rooms: {', '.join(ALLOWED)})")
                elif not (root / inc).is_file():
                    problems.append(f"{where}: no such file")
                elif target != room and target not in ALLOWED[room]:
                    allowed = ", ".join(ALLOWED[room]) or "no other room"
                    problems.append(f"{where}: room {room} may not include room {target} "
                                    f"(it may include: {allowed}; scripts/check-rooms.py ALLOWED)")
    problems += room_comment_problems(root)
    if problems:
        print("check-rooms: includes that do not point one way between the rooms of engine/:", file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        return 1
    print(f"check-rooms: {checked} source files of engine/, av/, gpu/ and mux/; "
          f"every include between the {len(ALLOWED)} rooms of engine/ points one way")
    return 0


if __name__ == "__main__":
    sys.exit(main())
