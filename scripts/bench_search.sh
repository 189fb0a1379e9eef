#!/usr/bin/env bash
# make bench-search (docs/PERFORMANCE.md, "## search"): `sessions search LITERAL` over
# 1,000 x 1 MB transcripts beside `grep -rF -c` and `rg -F -c` (when installed: Debian's ripgrep)
# over the same files, and peak RSS (/usr/bin/time -v) there and on a single 1 GB transcript.
# Prints markdown on stdout. Needs no OpenClaw peer.
#
# The data is generated once into the work dir (about 2.1 GB) by scripts/gen_transcripts.py from the
# fixture's real transcripts: a state of 1,000 sessions with 1 MB transcripts, and one of a single
# session with a 1 GB transcript (scripts/bench_search_state.py writes their config and store).
#
# env: BIN (default bin/sessions; built into the work dir when missing), BENCH_WORK (default
#      .bench/search), BENCH_RUNS (timed rounds, default 11), BENCH_NEEDLES (literals, comma-separated;
#      default "deploy,quick question"), BENCH_STRICT=1 (exit 3 when a target is missed).
# Skips with one line (exit 0) when python3, grep or /usr/bin/time is missing.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${BIN:-$ROOT/bin/sessions}
WORK=${BENCH_WORK:-$ROOT/.bench/search}
FIXTURE=$ROOT/testdata/state-2026.1.30
skip() { echo "bench_search: skipped ($1)"; exit 0; }
log() { echo "bench_search: $*" >&2; }
command -v python3 >/dev/null 2>&1 || skip "python3 not found"
command -v grep >/dev/null 2>&1 || skip "grep not found"
[ -x /usr/bin/time ] || skip "/usr/bin/time not found (Debian: apt-get install time)"
command -v rg >/dev/null 2>&1 || log "rg not found (Debian: apt-get install ripgrep); comparing with grep only"
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
if [ ! -x "$BIN" ]; then
  log "$BIN not found; building it"
  (cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "$WORK/sessions" ./cmd/sessions)
  BIN=$WORK/sessions
fi

# Data sets are generated once and reused; the version in the mark changes when the generator does.
if [ ! -f "$WORK/s1k/.bench-v1" ]; then
  log "generating 1,000 sessions with 1 MB transcripts"
  rm -rf "$WORK/s1k"
  python3 "$ROOT/scripts/bench_search_state.py" --fixture "$FIXTURE" --out "$WORK/s1k" --count 1000
  python3 "$ROOT/scripts/gen_transcripts.py" store --source "$FIXTURE" --bytes 1M \
    --store "$WORK/s1k/agents/main/sessions/sessions.json" >/dev/null
  touch "$WORK/s1k/.bench-v1"
fi
if [ ! -f "$WORK/one1g/.bench-v1" ]; then
  log "generating one session with a 1 GB transcript"
  rm -rf "$WORK/one1g"
  python3 "$ROOT/scripts/bench_search_state.py" --fixture "$FIXTURE" --out "$WORK/one1g" --count 1
  sid=$(python3 -c 'import json,sys; print(next(iter(json.load(open(sys.argv[1])).values()))["sessionId"])' \
    "$WORK/one1g/agents/main/sessions/sessions.json")
  python3 "$ROOT/scripts/gen_transcripts.py" one --source "$FIXTURE" --bytes 1G --session-id "$sid" \
    --out "$WORK/one1g/agents/main/sessions/$sid.jsonl" >/dev/null
  touch "$WORK/one1g/.bench-v1"
fi

needles=()
IFS=',' read -r -a list <<<"${BENCH_NEEDLES:-deploy,quick question}"
for n in "${list[@]}"; do needles+=(--needle "$n"); done
echo "## search: $(date -u +%F), $(nproc) CPU, $(uname -sr), $(cd "$ROOT" && go version | cut -d' ' -f3)"
echo
python3 "$ROOT/scripts/bench_search.py" --bin "$BIN" --work "$WORK" --runs "${BENCH_RUNS:-11}" "${needles[@]}"
