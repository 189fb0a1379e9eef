#!/usr/bin/env bash
# The usage benchmark (docs/PERFORMANCE.md, "## usage"): `sessions usage --by day` over 1,000
# transcripts of 1 MB (the 1 GB state scripts/gen_transcripts.py writes from the real 2026.1.30
# fixture), cold (no usage cache: --no-cache) beside `cat` of the same files, warm (the cache
# filled by a previous run), and the peak RSS (/usr/bin/time -v) on that state and on a single
# 1 GB transcript. Prints markdown on stdout. No OpenClaw peer needed.
#
# env: BIN (default bin/sessions), BENCH_WORK (default .bench/usage), BENCH_RUNS (default 5).
# Skips with one line (exit 0) when python3 or GNU time (/usr/bin/time) is missing.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$ROOT/bin/sessions}
WORK=${BENCH_WORK:-$ROOT/.bench/usage}
RUNS=${BENCH_RUNS:-5}
FIXTURE=$ROOT/testdata/state-2026.1.30
log() { echo "bench_usage: $*" >&2; }
command -v python3 >/dev/null 2>&1 || { echo "bench_usage: skipped (python3 not found)"; exit 0; }
[ -x /usr/bin/time ] && /usr/bin/time -v true >/dev/null 2>&1 || { echo "bench_usage: skipped (GNU time /usr/bin/time not found)"; exit 0; }
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
if [ ! -x "$BIN" ]; then
  log "$BIN not found; building it"
  (cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "$WORK/sessions" ./cmd/sessions)
  BIN=$WORK/sessions
fi

# make_state DIR N: a state dir (the fixture's config) whose agent main has N sessions.
make_state() {
  rm -rf "$1"; mkdir -p "$1/agents/main/sessions"
  cp "$FIXTURE/openclaw.json" "$1/"
  python3 - "$1/agents/main/sessions/sessions.json" "$2" <<'PY'
import json, sys, uuid
n = int(sys.argv[2])
store = {f"agent:main:bench:{i}": {"sessionId": str(uuid.UUID(int=i + 1, version=4)), "updatedAt": 1795236215000 + i}
         for i in range(n)}
json.dump(store, open(sys.argv[1], "w"))
PY
}
if [ ! -f "$WORK/s1k/.done-v1" ]; then
  log "generating 1,000 sessions with 1 MB transcripts"
  make_state "$WORK/s1k" 1000
  python3 "$ROOT/scripts/gen_transcripts.py" store --source "$FIXTURE" --bytes 1M \
    --store "$WORK/s1k/agents/main/sessions/sessions.json" >/dev/null
  touch "$WORK/s1k/.done-v1"
fi
if [ ! -f "$WORK/s1g/.done-v1" ]; then
  log "generating one 1 GB transcript"
  make_state "$WORK/s1g" 1
  sid=$(python3 -c 'import json,sys; print(next(iter(json.load(open(sys.argv[1])).values()))["sessionId"])' "$WORK/s1g/agents/main/sessions/sessions.json")
  python3 "$ROOT/scripts/gen_transcripts.py" one --source "$FIXTURE" --bytes 1G --session-id "$sid" \
    --out "$WORK/s1g/agents/main/sessions/$sid.jsonl" >/dev/null
  touch "$WORK/s1g/.done-v1"
fi
export XDG_CACHE_HOME=$WORK/cache
python3 "$ROOT/scripts/bench_usage.py" --bin "$BIN" --s1k "$WORK/s1k" --s1g "$WORK/s1g" --cache "$WORK/cache" --runs "$RUNS"
