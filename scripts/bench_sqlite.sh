#!/usr/bin/env bash
# The SQLite-era list benchmark (docs/PERFORMANCE.md, "## SQLite era"): `sessions list` on a 10,000-session
# OpenClaw 2026.8+ SQLite store beside the real `openclaw sessions --json --all-agents --limit all` of
# openclaw@2026.9.6 on a copy of the same state. Prints markdown on stdout.
#
# The store is the one internal/sqlitestore's BenchmarkStore10k builds from the 2026.9.6 fixture
# (kept in the work dir via SESSIONS_SQLITE_BENCH_DIR). openclaw@2026.9.6 is installed once into the
# work dir (`npm install --ignore-scripts`) and run on the peer's Node 24.
#
# The floor beside them: the native `sqlite3 -readonly` shell selecting agent main's entry_json to
# /dev/null (a row only when sqlite3 is on PATH).
#
# env: PEER, BIN, BIN_BEFORE (an earlier build timed beside BIN), BENCH_WORK (default .bench/sqlite), BENCH_RUNS (default 11), BENCH_OC_RUNS (default 5).
# Skips with one line (exit 0) when the peer, npm or the openclaw@2026.9.6 package is unavailable.
set -euo pipefail
BENCH_NAME=bench_sqlite BENCH_WORK_DEFAULT=.bench/sqlite
source "$(dirname "$0")/bench_lib.sh"
bench_init
eval "$("$PEER" env --home "$WORK/oc-home")"
# The peer's own openclaw@2026.9.6 when it has it installed, else one installed here with npm.
OC96_DIR=$("$PEER" env --home "$WORK/oc-home" --version 2026.9.6 2>/dev/null | sed -n 's/^export OPENCLAW_PEER_OC_DIR=//p')
OC=$WORK/oc96/node_modules/openclaw/openclaw.mjs
if [ -n "$OC96_DIR" ] && [ -f "$OC96_DIR/openclaw.mjs" ]; then
  OC=$OC96_DIR/openclaw.mjs
elif [ ! -f "$OC" ]; then
  command -v npm >/dev/null 2>&1 || { echo "$BENCH_NAME: skipped (npm not found)"; exit 0; }
  log "installing openclaw@2026.9.6 into $WORK/oc96"
  if ! npm install --prefix "$WORK/oc96" --ignore-scripts --no-audit --no-fund openclaw@2026.9.6 >"$WORK/npm.log" 2>&1; then
    echo "$BENCH_NAME: skipped (npm install openclaw@2026.9.6 failed, see $WORK/npm.log)"; exit 0
  fi
fi
if [ ! -f "$WORK/state/agents/main/agent/openclaw-agent.sqlite" ]; then
  log "building the 10,000-session SQLite store"
  (cd "$ROOT" && SESSIONS_SQLITE_BENCH_DIR="$WORK" go test -run '^$' -bench 'BenchmarkStore10k$' -benchtime 1x ./internal/sqlitestore >/dev/null)
fi
# OpenClaw 2026.9.6 migrates the config it loads and may leave WAL files: it gets its own copy.
rm -rf "$WORK/oc-state" && cp -a "$WORK/state" "$WORK/oc-state"
mkdir -p "$WORK/oc-home"

echo "## SQLite era: $(date -u +%F), $(nproc) CPU, $(uname -sr), $(cd "$ROOT" && go version | cut -d' ' -f3)"
echo
python3 "$ROOT/scripts/bench_sqlite.py" --bin "$BIN" --state "$WORK/state" --oc-state "$WORK/oc-state" \
  --node "$OPENCLAW_PEER_NODE" --openclaw "$OC" --home "$WORK/oc-home" \
  --bin-before "${BIN_BEFORE:-}" --sqlite3 "$(command -v sqlite3 || true)" --db "$WORK/state/agents/main/agent/openclaw-agent.sqlite" \
  --runs "${BENCH_RUNS:-11}" --oc-runs "${BENCH_OC_RUNS:-5}"
