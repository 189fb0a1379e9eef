#!/usr/bin/env bash
# The export benchmark (docs/PERFORMANCE.md, "## export"): `sessions export` of one 200 MB
# transcript (scripts/gen_transcripts.py, from the real 2026.1.30 fixture) in each format, beside
# reading the same messages with history's reader — every page of 1000, raw, tool results
# included, each page's nextCursor the next --before: what a script did before export — and
# beside `cat` of the file. Wall time is the median of BENCH_RUNS runs side by side; the peak RSS
# is /usr/bin/time -v's. Prints markdown on stdout. No OpenClaw peer needed.
#
# env: BIN (default bin/sessions), BENCH_WORK (default .bench/export), BENCH_RUNS (default 3),
# BENCH_EXPORT_SIZE (default 200M).
# Skips with one line (exit 0) when python3 or GNU time (/usr/bin/time) is missing.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$ROOT/bin/sessions}
WORK=${BENCH_WORK:-$ROOT/.bench/export}
RUNS=${BENCH_RUNS:-3}
SIZE=${BENCH_EXPORT_SIZE:-200M}
FIXTURE=$ROOT/testdata/state-2026.1.30
log() { echo "bench_export: $*" >&2; }
command -v python3 >/dev/null 2>&1 || { echo "bench_export: skipped (python3 not found)"; exit 0; }
[ -x /usr/bin/time ] && /usr/bin/time -v true >/dev/null 2>&1 || { echo "bench_export: skipped (GNU time /usr/bin/time not found)"; exit 0; }
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
if [ ! -x "$BIN" ]; then
  log "$BIN not found; building it"
  (cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "$WORK/sessions" ./cmd/sessions)
  BIN=$WORK/sessions
fi
STATE=$WORK/state-$SIZE
SID=0e7a0000-0000-4000-8000-000000000001
TR=$STATE/agents/main/sessions/$SID.jsonl
if [ ! -f "$STATE/.done-v1" ]; then
  log "generating one $SIZE transcript"
  rm -rf "$STATE"; mkdir -p "$STATE/agents/main/sessions"
  cp "$FIXTURE/openclaw.json" "$STATE/"
  printf '{"agent:main:main":{"sessionId":"%s","updatedAt":1795236215000}}\n' "$SID" > "$STATE/agents/main/sessions/sessions.json"
  python3 "$ROOT/scripts/gen_transcripts.py" one --source "$FIXTURE" --bytes "$SIZE" --session-id "$SID" --out "$TR" >/dev/null
  touch "$STATE/.done-v1"
fi
export OPENCLAW_STATE_DIR=$STATE
bytes=$(wc -c < "$TR")

# history_all: every page of the transcript, oldest page last, as a script reads it.
history_all() {
  local before=() page=$WORK/page.json
  while :; do
    "$BIN" history main --raw --include-tools --limit 1000 --json "${before[@]}" > "$page"
    cur=$(grep -o '"nextCursor": "[^"]*"' "$page" | cut -d'"' -f4 || true)
    [ -n "$cur" ] || break
    before=(--before "$cur")
  done
}
export_fmt() { "$BIN" export main --format "$1" > /dev/null; }
cat_file() { cat "$TR" > /dev/null; }

# timed NAME CMD…: wall seconds and max RSS (KiB) of one run, appended to $WORK/NAME.
timed() {
  local name=$1; shift
  /usr/bin/time -f '%e %M' -o "$WORK/t.$name" bash -c "$(declare -f history_all export_fmt cat_file); BIN='$BIN' WORK='$WORK' TR='$TR' $*"
  cat "$WORK/t.$name" >> "$WORK/r.$name"
}
names=(cat history export-jsonl export-json export-markdown export-html)
rm -f "$WORK"/r.*
for ((i = 1; i <= RUNS; i++)); do
  log "run $i of $RUNS"
  timed cat cat_file
  timed history history_all
  for f in jsonl json markdown html; do timed export-$f export_fmt $f; done
done
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
hist=$(cut -d' ' -f1 "$WORK/r.history" | median)
echo "## export of one $(awk -v b="$bytes" 'BEGIN {printf "%.0f MB", b/1e6}') transcript ($(grep -c . "$TR") lines), median of $RUNS runs side by side"
echo
echo "| what | wall (s) | × history's pages | peak RSS (MB) |"
echo "|---|---|---|---|"
for n in "${names[@]}"; do
  w=$(cut -d' ' -f1 "$WORK/r.$n" | median)
  r=$(cut -d' ' -f2 "$WORK/r.$n" | sort -n | tail -1)
  label=$n
  [ "$n" = history ] && label="history, every page of 1000 (--raw --include-tools --json, by --before)"
  [ "$n" = cat ] && label="cat (the disk)"
  awk -v l="$label" -v w="$w" -v h="$hist" -v r="$r" 'BEGIN {printf "| %s | %.2f | %.2f | %.1f |\n", l, w, w/h, r/1024}'
done
