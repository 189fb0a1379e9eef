#!/usr/bin/env bash
# The MCP server's benchmarks (docs/PERFORMANCE.md, "## MCP server"): `sessions mcp` on stdio beside
# `sessions list --json` processes on the same 10,000-session stores, JSON era (storegen) and SQLite era
# (internal/sqlitestore's BenchmarkStore10k store, built once into BENCH_WORK): a warm sessions_list call,
# 16 concurrent callers (p50/p99), the time from start to an answered initialize, and peak RSS
# (GNU time). No peer needed. Prints markdown on stdout.
#
# env: BENCH_WORK (default .bench/sqlite, shared with bench_sqlite.sh), BENCH_CALLS (default 200: the
# calls each timing benchmark makes), BENCH_RSS_RUNS (default 5: servers and list processes measured).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${BENCH_WORK:-$ROOT/.bench/sqlite}
mkdir -p "$WORK" && WORK=$(cd "$WORK" && pwd)
if [ ! -f "$WORK/state/agents/main/agent/openclaw-agent.sqlite" ]; then
  echo "bench_mcp: building the 10,000-session SQLite store" >&2
  (cd "$ROOT" && SESSIONS_SQLITE_BENCH_DIR="$WORK" go test -run '^$' -bench 'BenchmarkStore10k$' -benchtime 1x ./internal/sqlitestore >/dev/null)
fi
echo "## MCP server: $(date -u +%F), $(nproc) CPU, $(uname -sr), $(cd "$ROOT" && go version | cut -d' ' -f3), load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?)"
echo
echo '```'
cd "$ROOT"
SESSIONS_SQLITE_BENCH_DIR="$WORK" go test -run '^$' -bench 'MCP(List|Ready)' -benchtime "${BENCH_CALLS:-200}x" ./internal/mcpserver | grep '^Benchmark'
SESSIONS_SQLITE_BENCH_DIR="$WORK" go test -run '^$' -bench 'MCPRSS' -benchtime "${BENCH_RSS_RUNS:-5}x" ./internal/mcpserver | grep '^Benchmark'
echo '```'
