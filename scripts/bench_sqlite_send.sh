#!/usr/bin/env bash
# The benchmark of send on the SQLite store (docs/PERFORMANCE.md, "SQLite era: send"): `sessions send --timeout 0` on a
# 10,000-session OpenClaw 2026.8+ SQLite store (no OpenClaw running: the write path of
# internal/sessionwrite → sqlitewrite) beside `sessions list --json` on the same store; target: send
# within 2× of list. Rounds alternate send and list; each send's detached run (exec engine `true`) is
# waited for outside the timing, so no runner writes while the other command is timed.
#
# The store is the one internal/sqlitestore's BenchmarkStore10k builds from the 2026.9.6 fixture
# (kept in the work dir via SESSIONS_SQLITE_BENCH_DIR). No peer needed. Prints markdown on stdout.
#
# env: BIN (default: built into the work dir), BENCH_WORK (default .bench/sqlite-send), BENCH_RUNS (default 11).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${BENCH_WORK:-$ROOT/.bench/sqlite-send}
RUNS=${BENCH_RUNS:-11}
mkdir -p "$WORK" && WORK=$(cd "$WORK" && pwd)
command -v python3 >/dev/null 2>&1 || { echo "bench_sqlite_send: skipped (python3 not found)"; exit 0; }
if [ -z "${BIN:-}" ]; then
  (cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "$WORK/sessions" ./cmd/sessions)
  BIN=$WORK/sessions
fi
if [ ! -f "$WORK/state/agents/main/agent/openclaw-agent.sqlite" ]; then
  echo "bench_sqlite_send: building the 10,000-session SQLite store" >&2
  (cd "$ROOT" && SESSIONS_SQLITE_BENCH_DIR="$WORK" go test -run '^$' -bench 'BenchmarkStore10k$' -benchtime 1x ./internal/sqlitestore >/dev/null)
fi
echo "## SQLite era, send: $(date -u +%F), $(nproc) CPU, $(uname -sr), $(cd "$ROOT" && go version | cut -d' ' -f3)"
echo
python3 - "$BIN" "$WORK/state" "$RUNS" <<'PY'
import json, statistics, subprocess, sys, time, os
bin_, state, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
env = dict(os.environ, OPENCLAW_SESSION_KEY="", OPENCLAW_STATE_DIR="", SESSIONS_ENGINE="", SESSIONS_DELIVER="")
def run(args):
    t = time.perf_counter()
    p = subprocess.run([bin_, "--state-dir", state] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    dt = (time.perf_counter() - t) * 1000
    if p.returncode != 0:
        sys.exit("sessions %s: exit %d\n%s" % (" ".join(args), p.returncode, p.stderr.decode()))
    return dt, p.stdout
def settle():
    for _ in range(600):
        out = subprocess.run([bin_, "--state-dir", state, "runs", "--json", "--limit", "all"], stdout=subprocess.PIPE, env=env).stdout
        if all(r["status"] not in ("accepted", "running") for r in json.loads(out)["runs"]):
            return
        time.sleep(0.1)
    sys.exit("runs did not end")
run(["list", "--json"])  # warm the page cache
sends, lists = [], []
for i in range(runs):
    dt, out = run(["send", "main", "bench %d" % i, "--timeout", "0", "--engine", "exec:true", "--json"])
    assert json.loads(out)["status"] == "accepted", out
    sends.append(dt)
    settle()
    dt, _ = run(["list", "--json"])
    lists.append(dt)
s, l = statistics.median(sends), statistics.median(lists)
print("| command (10,000-session 2026.8+ store, %d runs each, alternating) | median | min | max |" % runs)
print("|---|---|---|---|")
print("| `sessions send main MSG --timeout 0 --engine exec:true` | %.1f ms | %.1f ms | %.1f ms |" % (s, min(sends), max(sends)))
print("| `sessions list --json` | %.1f ms | %.1f ms | %.1f ms |" % (l, min(lists), max(lists)))
print()
print("send / list: **%.2f×** (target ≤ 2×)" % (s / l))
PY
