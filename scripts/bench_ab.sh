#!/usr/bin/env bash
# Side by side: the read benchmarks of a base revision and of the working
# tree, run alternately on one machine (base, tree, base, tree, …) so that
# the load of the moment falls on both, then the median of each and the
# ratio tree/base. What a reshaping must keep within 5%: list (JSON and
# SQLite 10k stores), history, search, usage (warm), the MCP server's warm
# list (in process) and the terminal UI's first frame.
#
# usage: scripts/bench_ab.sh [BASE_REV]   (default: origin/main, else main)
# env:   BENCH_ROUNDS (default 5), BENCH_TIME (go test -benchtime, default 1s),
#        BENCH_WORK (default .bench/ab: the data, generated once: the 10k
#        SQLite store, and 200 sessions with 1 MB transcripts for search
#        and usage), BENCH_ONLY (a regexp: only the benchmarks whose
#        "package name" matches it)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DATA=${BENCH_WORK:-$ROOT/.bench/ab}
mkdir -p "$DATA" && DATA=$(cd "$DATA" && pwd)
FIXTURE=$ROOT/testdata/state-2026.1.30
if [ ! -f "$DATA/state/agents/main/agent/openclaw-agent.sqlite" ]; then
  echo "bench_ab: building the 10,000-session SQLite store" >&2
  (cd "$ROOT" && SESSIONS_SQLITE_BENCH_DIR="$DATA" go test -run '^$' -bench 'BenchmarkStore10k$' -benchtime 1x ./internal/sqlitestore >/dev/null)
fi
if [ ! -f "$DATA/s200/.done-v1" ]; then
  echo "bench_ab: generating 200 sessions with 1 MB transcripts" >&2
  rm -rf "$DATA/s200"; mkdir -p "$DATA/s200/agents/main/sessions"
  cp "$FIXTURE/openclaw.json" "$DATA/s200/"
  python3 - "$DATA/s200/agents/main/sessions/sessions.json" 200 <<'PY'
import json, sys, uuid
n = int(sys.argv[2])
json.dump({f"agent:main:bench:{i}": {"sessionId": str(uuid.UUID(int=i + 1, version=4)), "updatedAt": 1795236215000 + i}
           for i in range(n)}, open(sys.argv[1], "w"))
PY
  python3 "$ROOT/scripts/gen_transcripts.py" store --source "$FIXTURE" --bytes 1M \
    --store "$DATA/s200/agents/main/sessions/sessions.json" >/dev/null
  touch "$DATA/s200/.done-v1"
fi
export SESSIONS_SQLITE_BENCH_DIR=$DATA SESSIONS_SEARCH_BENCH_STATE=$DATA/s200 SESSIONS_USAGE_BENCH_STATE=$DATA/s200
BASE=${1:-$(git -C "$ROOT" rev-parse --verify -q origin/main >/dev/null && echo origin/main || echo main)}
ROUNDS=${BENCH_ROUNDS:-5}
BTIME=${BENCH_TIME:-1s}
WORK=$(mktemp -d)
trap 'git -C "$ROOT" worktree remove --force "$WORK/base" >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT

# package  benchmark (anchored)
BENCHES=(
  "internal/cmd/list ^BenchmarkListJSON10kAll$"
  "internal/cmd/list ^BenchmarkListJSON10kSQLite$"
  "internal/cmd/history ^BenchmarkHistory$"
  "internal/cmd/search ^BenchmarkSearchCmd$"
  "internal/cmd/usage ^BenchmarkWarm$"
  "internal/mcpserver ^BenchmarkMCPListInProcess10k$"
  "internal/cmd/ui ^BenchmarkFirstFrame10k$"
)

if [ -n "${BENCH_ONLY:-}" ]; then
  sel=()
  for b in "${BENCHES[@]}"; do grep -Eq -- "$BENCH_ONLY" <<<"$b" && sel+=("$b"); done
  BENCHES=("${sel[@]}")
fi
git -C "$ROOT" worktree add --detach "$WORK/base" "$BASE" >/dev/null 2>&1
# A tree with a search index answers from it once it is built; build it
# first, or the search benchmark times the build (a test binary never
# starts the background build) instead of the search.
if (cd "$ROOT" && go run ./cmd/sessions help index >/dev/null 2>&1); then
  (cd "$ROOT" && go run ./cmd/sessions --state-dir "$DATA/s200" index --update >/dev/null)
fi
echo "## Side by side: $(git -C "$ROOT" rev-parse --short "$BASE") (base) and the working tree at $(git -C "$ROOT" rev-parse --short HEAD); $(date -u +%F), $(nproc) CPU, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
build() { # tree pkg out
  (cd "$1" && go test -c -o "$3" "./$2" >/dev/null)
}
i=0
for b in "${BENCHES[@]}"; do
  set -- $b
  build "$WORK/base" "$1" "$WORK/base.$i.test"
  build "$ROOT" "$1" "$WORK/tree.$i.test"
  i=$((i + 1))
done
: >"$WORK/results"
for ((r = 1; r <= ROUNDS; r++)); do
  i=0
  for b in "${BENCHES[@]}"; do
    set -- $b
    for side in base tree; do
      dir=$ROOT/$1
      [ "$side" = base ] && dir=$WORK/base/$1
      ns=$(cd "$dir" && "$WORK/$side.$i.test" -test.run '^$' -test.bench "$2" -test.benchtime "$BTIME" 2>/dev/null |
        awk '/^Benchmark/ { for (f = 1; f <= NF; f++) if ($f == "ns/op") { print $(f-1); exit } }')
      echo "$i $side ${ns:-NaN}" >>"$WORK/results"
    done
    i=$((i + 1))
  done
done
echo "| benchmark | base median | tree median | tree/base |"
echo "|---|---:|---:|---:|"
i=0
for b in "${BENCHES[@]}"; do
  set -- $b
  name=${2#^}; name=${name%$}
  python3 - "$WORK/results" "$i" "$1 $name" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
i, name = sys.argv[2], sys.argv[3]
med = {}
for side in ("base", "tree"):
    v = [float(r[2]) for r in rows if r[0] == i and r[1] == side and r[2] != "NaN"]
    med[side] = statistics.median(v) if v else float("nan")
fmt = lambda ns: f"{ns/1e6:.2f} ms"
print(f"| {name} | {fmt(med['base'])} | {fmt(med['tree'])} | {med['tree']/med['base']:.3f} |")
EOF
  i=$((i + 1))
done
