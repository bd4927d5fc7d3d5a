# shellcheck shell=bash
# Sourced by scripts/build-image.sh and scripts/check-debian13.sh: wall time
# per phase of a long script, printed at its end. The sourcing script
# defines say (its prefixed log line).
declare -a PHASES=()
phase_name=
phase_start=0
T0=$SECONDS
phase() {  # phase NAME: ends the running phase, starts the next one
  if [[ -n "$phase_name" ]]; then
    PHASES+=("$(printf '%5d s  %s' $((SECONDS - phase_start)) "$phase_name")")
  fi
  phase_name="${1:-}"
  phase_start=$SECONDS
  [[ -n "$phase_name" ]] && say "== $phase_name"
  return 0
}
print_timings() {
  phase ""
  say "wall time per phase:"
  local p
  for p in "${PHASES[@]}"; do echo "    $p"; done
  printf '    %5d s  total\n' $((SECONDS - T0))
}
