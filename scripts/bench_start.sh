#!/usr/bin/env bash
# make bench-start: what a process call costs (docs/PERFORMANCE.md, "Start-up"), a base revision and the
# working tree side by side in one run: an empty Go program (prints "hi"), `sessions version`, and
# `sessions list --json` on the demo state (testdata/state-2026.1.30), on the 10,000-session JSON store
# (openclaw-peer synth-store, ~54 MB) and on the 10,000-session SQLite store (internal/sqlitestore's
# BenchmarkStore10k) — there also `--limit 5` and `--limit 10000` — with `cat` of the JSON store beside
# them. Each side has its own cache dir (XDG_CACHE_HOME), warmed by the checked first run: the figures
# are of a store that did not change since the last call (the store cache's disk tier). Each command is timed by hyperfine (-N,
# no shell) for BENCH_RUNS runs per round, the commands taking turns round by round (base, tree, base,
# tree, …) so that the machine's load of the moment falls on all; the median and minimum over every
# round are printed as markdown, with the load average before and after.
#
# usage: scripts/bench_start.sh [BASE_REV]   (default: main)
# env:   BENCH_ROUNDS (default 5), BENCH_RUNS (runs per round, default 10), BENCH_WORK (default
#        .bench/start: the data, generated once), PEER (openclaw-peer, for synth-store)
# Skips with one line (exit 0) without hyperfine (Debian: apt-get install hyperfine) or python3.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v hyperfine >/dev/null 2>&1; then echo "bench-start: skipped (no hyperfine; Debian: apt-get install hyperfine)"; exit 0; fi
if ! command -v python3 >/dev/null 2>&1; then echo "bench-start: skipped (no python3)"; exit 0; fi
PEER=${PEER:-$ROOT/../shared/peer/openclaw-peer}
DATA=${BENCH_WORK:-$ROOT/.bench/start}
mkdir -p "$DATA" && DATA=$(cd "$DATA" && pwd)
ROUNDS=${BENCH_ROUNDS:-5}
RUNS=${BENCH_RUNS:-10}
BASE=${1:-main}
FIXTURE=$ROOT/testdata/state-2026.1.30

# The data, once: a copy of the demo state, the 10k JSON state and the 10k SQLite state.
if [ ! -f "$DATA/demo/.done-v1" ]; then
  rm -rf "$DATA/demo"; cp -R "$FIXTURE" "$DATA/demo"; touch "$DATA/demo/.done-v1"
fi
if [ ! -f "$DATA/json10k/.done-v1" ]; then
  if [ ! -x "$PEER" ]; then echo "bench-start: skipped (no $PEER for the 10k JSON store)"; exit 0; fi
  echo "bench-start: generating the 10,000-session JSON store" >&2
  rm -rf "$DATA/json10k"; mkdir -p "$DATA/json10k/agents/main/sessions"
  cp "$FIXTURE/openclaw.json" "$DATA/json10k/"
  "$PEER" synth-store --from "$FIXTURE/agents/main/sessions/sessions.json" --count 10000 \
    --out "$DATA/json10k/agents/main/sessions/sessions.json" --with-transcripts >/dev/null
  touch "$DATA/json10k/.done-v1"
fi
if [ ! -f "$DATA/sqlite/state/agents/main/agent/openclaw-agent.sqlite" ]; then
  echo "bench-start: building the 10,000-session SQLite store" >&2
  mkdir -p "$DATA/sqlite"
  (cd "$ROOT" && SESSIONS_SQLITE_BENCH_DIR="$DATA/sqlite" go test -run '^$' -bench 'BenchmarkStore10k$' -benchtime 1x ./internal/sqlitestore >/dev/null)
fi

WORK=$(mktemp -d)
trap 'git -C "$ROOT" worktree remove --force "$WORK/base" >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
git -C "$ROOT" worktree add --detach "$WORK/base" "$BASE" >/dev/null 2>&1
build() { # tree out
  (cd "$1" && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$2" ./cmd/sessions)
}
build "$WORK/base" "$WORK/sessions.base"
build "$ROOT" "$WORK/sessions.tree"
mkdir -p "$WORK/empty"
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hi") }\n' >"$WORK/empty/main.go"
(cd "$WORK/empty" && GO111MODULE=off go build -o "$WORK/empty.bin" main.go)

STORE=$DATA/json10k/agents/main/sessions/sessions.json
# name|command (no shell: hyperfine -N)
CASES=("empty Go program|$WORK/empty.bin"
  "cat of the 10k JSON store|cat $STORE")
for side in base tree; do
  b=$WORK/sessions.$side
  CASES+=("$side: version|$b version"
    "$side: list --json, demo state|$b --state-dir $DATA/demo list --json"
    "$side: list --json, 10k JSON|$b --state-dir $DATA/json10k list --json"
    "$side: list --json --limit 5, 10k JSON|$b --state-dir $DATA/json10k list --json --limit 5"
    "$side: list --json --limit 10000, 10k JSON|$b --state-dir $DATA/json10k list --json --limit 10000"
    "$side: list --json, 10k SQLite|$b --state-dir $DATA/sqlite/state list --json"
    "$side: list --json --limit 5, 10k SQLite|$b --state-dir $DATA/sqlite/state list --json --limit 5"
    "$side: list --json --limit 10000, 10k SQLite|$b --state-dir $DATA/sqlite/state list --json --limit 10000")
done

# each command once, its output checked, and the store caches warmed (one cache dir per side)
sideof() { case $1 in base:*) echo base ;; tree:*) echo tree ;; *) echo none ;; esac; }
for c in "${CASES[@]}"; do
  side=$(sideof "$c")
  XDG_CACHE_HOME=$WORK/cache.$side ${c#*|} >/dev/null 2>"$WORK/err" || { echo "bench-start: '${c#*|}' failed:" >&2; cat "$WORK/err" >&2; exit 1; }
done

load0=$(cut -d' ' -f1-3 /proc/loadavg)
for ((r = 1; r <= ROUNDS; r++)); do
  i=0
  for c in "${CASES[@]}"; do
    side=$(sideof "$c")
    XDG_CACHE_HOME=$WORK/cache.$side hyperfine -N -w 1 -r "$RUNS" --style none --export-json "$WORK/r$r.$i.json" "${c#*|}" >/dev/null 2>&1
    i=$((i + 1))
  done
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)

echo "## Start-up: $(git -C "$ROOT" rev-parse --short "$BASE") (base) and the working tree at $(git -C "$ROOT" rev-parse --short HEAD); $(date -u '+%F %H:%M') UTC, $(nproc) CPU, load $load0 → $load1, $ROUNDS rounds × $RUNS runs"
echo
python3 - "$WORK" "$ROUNDS" "${#CASES[@]}" "${CASES[@]}" <<'PY'
import json, statistics, sys
work, rounds, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
names = [c.split("|", 1)[0] for c in sys.argv[4:4 + n]]
times = {i: [] for i in range(n)}
for r in range(1, rounds + 1):
    for i in range(n):
        times[i] += json.load(open(f"{work}/r{r}.{i}.json"))["results"][0]["times"]
med = {names[i]: statistics.median(times[i]) * 1e3 for i in range(n)}
mins = {names[i]: min(times[i]) * 1e3 for i in range(n)}
empty = med["empty Go program"]
cat = med["cat of the 10k JSON store"]
print("| process | median | min | × empty | × cat |")
print("|---|---:|---:|---:|---:|")
for nm in names:
    print(f"| {nm} | {med[nm]:.1f} ms | {mins[nm]:.1f} ms | {med[nm] / empty:.1f}× | {med[nm] / cat:.1f}× |")
print()
for what in ("version", "list --json, demo state", "list --json, 10k JSON", "list --json --limit 5, 10k JSON",
             "list --json --limit 10000, 10k JSON", "list --json, 10k SQLite", "list --json --limit 5, 10k SQLite",
             "list --json --limit 10000, 10k SQLite"):
    print(f"- {what}: tree/base {med['tree: ' + what] / med['base: ' + what]:.2f}")
PY
