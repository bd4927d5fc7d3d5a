"""Where the GPU slots' time went in one ladder run on the stand-in NVENC:
the slots' whole time (slots x the process's wall) split into what their
engines encoded and each kind of wait, so that a run below the busy target
shows what held it back. Used by scripts/bench-gpu. Python 3 standard
library only.

From report.json (chunks: slot, start, end; sessions: opened_encoder;
phase_seconds; wall_seconds) and the stand-in's engine time per GPU (its
log's busy_ms). The parts, in seconds summed over the slots:
  process      the process's wall outside ladder's run (start-up, exit)
  preflight    the run's start up to phase_seconds.preflight (inventory,
               the pre-flight's test encoders)
  first_chunk  from there to the slot's first chunk (the decoder cutting
               the first chunk of its rung; sessions opened ahead)
  engine       the stand-in's engines encoding (its model; with key frames
               "each" also its libaom key frames)
  opens        sessions opened during the run (within their first chunk):
               the count x the stand-in's session start
  host         the rest of the chunks' time: the slot's own work (host
               frames copied into NVENC's buffers, bitstreams locked), and
               an engine's wait for a frame not yet sent
  between      idle between a slot's chunks (nothing it could take)
  tail         after the slot's last chunk, to the end of the run
The shares sum to 1 (within rounding). A GPU's slots are taken to be its
engines, as ladder opens one slot per engine.
"""

PARTS = ["engine", "process", "preflight", "first_chunk", "opens", "host", "between", "tail"]


def _slot_chunks(report):
    by_slot = {}
    for c in report.get("chunks", []):
        by_slot.setdefault(c["slot"], []).append((c["start_seconds"], c["end_seconds"]))
    for label in (s["label"] for s in report.get("slots", [])):
        by_slot.setdefault(label, [])
    return {k: sorted(v) for k, v in by_slot.items()}


def slot_time(report, engine_busy_s, process_wall_s, open_ms):
    """Seconds per part and shares of the slots' time; None without slots."""
    chunks = _slot_chunks(report)
    gpu_slots = {k: v for k, v in chunks.items() if not k.startswith("cpu")}
    if not gpu_slots:
        return None
    run_wall = report.get("wall_seconds") or process_wall_s
    preflight = min(report.get("phase_seconds", {}).get("preflight", 0.0), run_wall)
    parts = dict.fromkeys(PARTS, 0.0)
    in_chunks = 0.0
    for spans in gpu_slots.values():
        parts["process"] += max(0.0, process_wall_s - run_wall)
        parts["preflight"] += preflight
        if not spans:
            parts["tail"] += run_wall - preflight
            continue
        parts["first_chunk"] += max(0.0, spans[0][0] - preflight)
        parts["between"] += sum(max(0.0, b[0] - a[1]) for a, b in zip(spans, spans[1:]))
        parts["tail"] += max(0.0, run_wall - spans[-1][1])
        in_chunks += sum(end - start for start, end in spans)
    opened = sum(1 for s in report.get("sessions", [])
                 if s.get("opened_encoder") and not s.get("slot", "").startswith("cpu"))
    parts["opens"] = opened * open_ms / 1000.0
    parts["engine"] = sum(engine_busy_s.values())
    parts["host"] = in_chunks - parts["opens"] - parts["engine"]
    total = process_wall_s * len(gpu_slots)
    return {"slots": len(gpu_slots), "slot_seconds": round(total, 3),
            "seconds": {k: round(v, 3) for k, v in parts.items()},
            "share": {k: round(v / total, 3) if total > 0 else None for k, v in parts.items()}}
