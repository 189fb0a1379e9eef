#!/usr/bin/env bash
# Benchmarks of `sessions send` (docs/PERFORMANCE.md, "## Send"): `send --timeout 0` against a plain
# `list` on a 10,000-entry store, and the runner's own overhead per turn (everything but the model)
# on that store with a small and a 200 MB transcript, with an instant exec engine and with the
# provider engine against the fake model server (internal/engine/enginetest/cmd/fakellm). Then Go
# micro-benchmarks of the phases (internal/runner/bench_test.go: transcript.LeafPath on 200 MB,
# store.Load / store.Update on 10k entries, transcript.Append on 200 MB). Prints markdown on stdout.
#
# env: PEER         openclaw-peer script (default ../shared/peer/openclaw-peer; only synth-store is used)
#      BIN          the sessions binary (default bin/sessions; built into the work dir when missing)
#      BENCH_WORK   work dir (default .bench/send, gitignored; data generated once and reused)
#      BENCH_RUNS   timed runs per case (default 11), BENCH_WARMUP (default 2)
#      BENCH_STRICT=1  exit 3 when send --timeout 0 is slower than 2x list (default: report only)
# Skips with one line (exit 0) when the peer is unavailable (missing, or `openclaw-peer install` exits
# 75) or python3 is missing (scripts/bench_lib.sh). Needs about 600 MB of disk.
set -euo pipefail
BENCH_NAME=bench_send BENCH_WORK_DEFAULT=.bench/send
source "$(dirname "$0")/bench_lib.sh"
bench_init
(cd "$ROOT" && go build -o "$WORK/fakellm" ./internal/engine/enginetest/cmd/fakellm)

# Data (once): the fixture's config, a 10,000-entry main store cloned from the fixture's real entries;
# agent:main:synthetic:s0 (a clone of agent:main:main) gets a 200 MB transcript, s8 a 20 KB one.
DATA=$WORK/data
if [ ! -f "$DATA/.bench-v1" ]; then
  log "generating a 10,000-entry store and a 200 MB transcript"
  rm -rf "$DATA"; mkdir -p "$DATA/agents/main/sessions"
  cp "$FIXTURE/openclaw.json" "$DATA/openclaw.json"
  "$PEER" synth-store --from "$FIXTURE/agents/main/sessions/sessions.json" --count 10000 \
    --out "$DATA/agents/main/sessions/sessions.json" >/dev/null
  for kv in s0:200M s8:20K; do
    sid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["agent:main:synthetic:"+sys.argv[2]]["sessionId"])' \
      "$DATA/agents/main/sessions/sessions.json" "${kv%%:*}")
    python3 "$ROOT/scripts/gen_transcripts.py" one --source "$FIXTURE" --bytes "${kv#*:}" --session-id "$sid" \
      --out "$DATA/agents/main/sessions/$sid.jsonl" >/dev/null
  done
  touch "$DATA/.bench-v1"
fi
# Every bench works on a fresh copy (sends append to the transcripts and write runs).
STATE=$WORK/state
rm -rf "$STATE"; cp -a "$DATA" "$STATE"

# The fake provider, stopped by PID on exit; the copy's provider "mock" points at it.
rm -f "$WORK/fakellm.url"
"$WORK/fakellm" --port 0 --announce-skip --url-file "$WORK/fakellm.url" --max-seconds 3600 >/dev/null &
FAKE_PID=$!
trap 'kill "$FAKE_PID" 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$WORK/fakellm.url" ] && break; sleep 0.05; done
URL=$(cat "$WORK/fakellm.url")
python3 - "$STATE/openclaw.json" "$URL" "$WORK/openclaw.log" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["models"]["providers"]["mock"]["baseUrl"] = sys.argv[2]
c.setdefault("logging", {})["file"] = sys.argv[3]
json.dump(c, open(sys.argv[1], "w"), indent=2)
PY

echo "## sessions send: $(date -u +%F), $(nproc) CPU, $(uname -sr), $(cd "$ROOT" && go version | cut -d' ' -f3)"
echo
rc=0
python3 "$ROOT/scripts/bench_send.py" --bin "$BIN" --state "$STATE" \
  --small agent:main:synthetic:s8 --big agent:main:synthetic:s0 --provider-url "$URL" \
  --runs "${BENCH_RUNS:-11}" --warmup "${BENCH_WARMUP:-2}" || rc=$?

# Go micro-benchmarks of the phases, on the pristine data.
echo
echo "### phases in isolation (go test -bench, internal/runner/bench_test.go)"
echo
echo '```'
(cd "$ROOT" && SESSIONS_BENCH_STATE="$DATA" SESSIONS_BENCH_BIG=agent:main:synthetic:s0 \
  go test -run '^$' -bench 'Phase' -benchtime 5x -count 1 ./internal/runner/ | grep -E '^(Benchmark|ok|FAIL)')
echo '```'
rm -rf "$STATE"
if [ "$rc" -eq 3 ]; then
  log "send --timeout 0 is slower than 2x list"
  [ "${BENCH_STRICT:-0}" = 1 ] || rc=0
fi
exit "$rc"
