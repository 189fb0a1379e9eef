#!/usr/bin/env bash
# make bench-search, second part (docs/PERFORMANCE.md, "## Search index"): the engines a search index
# could use, on one generated state (internal/testutil/bigstate: both storage eras, ~10,000 sessions,
# some Cyrillic and CJK): this project's trigram index (internal/searchindex) beside SQLite FTS5 with
# the trigram tokenizer, both beside the scan of internal/search on the same sources. Build time, peak
# RSS (each engine built in its own process, /usr/bin/time -v) and size; a rare, a common, a CJK and a
# Cyrillic query (candidates, then the real match on their lines); the catch-up after one appended
# message. Prints markdown on stdout.
#
# env: SESSIONS_BENCH_SESSIONS (default 10000), SESSIONS_BENCH_BYTES (text of the state, default 64M;
#      3.5G is the issue's size), SESSIONS_BENCH_DIR (where the state is generated once and kept,
#      default .bench/index), BENCH_COUNT (runs of each query benchmark, default 5).
# Skips with one line (exit 0) when /usr/bin/time is missing.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export SESSIONS_BENCH_DIR=${SESSIONS_BENCH_DIR:-$ROOT/.bench/index}
export SESSIONS_BENCH_SESSIONS=${SESSIONS_BENCH_SESSIONS:-10000}
export SESSIONS_BENCH_BYTES=${SESSIONS_BENCH_BYTES:-64M}
[ -x /usr/bin/time ] || { echo "bench_index: skipped (/usr/bin/time not found; Debian: apt-get install time)"; exit 0; }
mkdir -p "$SESSIONS_BENCH_DIR"
BIN=$SESSIONS_BENCH_DIR/searchindex.test
(cd "$ROOT" && go test -c -o "$BIN" ./internal/searchindex)
cd "$ROOT/internal/searchindex" # the test binary finds the fixtures from here

echo "## search index: $(date -u +%F), $(nproc) CPU, $(uname -sr), $(cd "$ROOT" && go version | cut -d' ' -f3)"
echo
echo "State: $SESSIONS_BENCH_SESSIONS sessions, $SESSIONS_BENCH_BYTES of transcripts (half JSONL, half a 2026.9.6 SQLite store)."
echo
# Generate the state once (not timed).
"$BIN" -test.run '^$' -test.bench 'Build/none' -test.benchtime 1x >/dev/null
echo "| engine | build | peak RSS | index size | size / text |"
echo "|---|---:|---:|---:|---:|"
for e in trigram fts5; do
  out=$(/usr/bin/time -v "$BIN" -test.run '^$' -test.bench "Build/$e\$" -test.benchtime 1x 2>"$SESSIONS_BENCH_DIR/time.$e")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f MB", $2/1024}' "$SESSIONS_BENCH_DIR/time.$e")
  echo "$out" | awk -v e="$e" -v rss="$rss" '/^BenchmarkBuild/ {
    for (i = 1; i <= NF; i++) { if ($(i+1) == "ns/op") ns = $i; if ($(i+1) == "index-MB") mb = $i; if ($(i+1) == "size/text") r = $i }
    printf "| %s | %.1f s | %s | %.1f MB | %.2f× |\n", e, ns / 1e9, rss, mb, r }'
done
echo
echo "Queries (one process, side by side; candidates then the real match on their lines, or the scan):"
echo
echo "Wall time per query (CPU time of the process per query), and candidates verified:"
echo
echo "| query | hits | scan | trigram (candidates) | fts5 (candidates) |"
echo "|---|---:|---:|---:|---:|"
"$BIN" -test.run '^$' -test.bench 'Query$|CatchUp' -test.benchtime "${BENCH_COUNT:-5}x" | awk '
  /^BenchmarkQuery\// {
    split($1, p, "/"); q = p[2]; e = p[3]; sub(/-[0-9]+$/, "", e)
    for (i = 1; i <= NF; i++) { if ($(i+1) == "ns/op") ns = $i; if ($(i+1) == "hits") h = $i; if ($(i+1) == "candidates") c = $i; if ($(i+1) == "cpu-ms/op") cpu = $i }
    t[q, e] = sprintf("%.2f ms (%.2f)", ns / 1e6, cpu); if (e != "scan") t[q, e] = t[q, e] ", " c + 0; hits[q] = h
    if (!(q in seen)) { seen[q] = 1; order[++n] = q } }
  /^BenchmarkCatchUp/ { for (i = 1; i <= NF; i++) { if ($(i+1) == "ns/op") cu = $i; if ($(i+1) == "cpu-ms/op") cucpu = $i } }
  END {
    for (k = 1; k <= n; k++) { q = order[k]; printf "| %s | %d | %s | %s | %s |\n", q, hits[q], t[q, "scan"], t[q, "trigram"], t[q, "fts5"] }
    printf "\nCatch-up after one appended message (update + rare query, trigram): %.2f ms (CPU %.2f ms)\n", cu / 1e6, cucpu }'
echo
echo "Verification (one process, side by side): the same candidates checked on their lines read again from"
echo "the transcripts (Read), or on the text the index keeps (Texts, then search.Options.Accept)."
echo
echo "| query | hits | lines: wall (CPU) | kept text: wall (CPU) |"
echo "|---|---:|---:|---:|"
"$BIN" -test.run '^$' -test.bench 'QueryKept' -test.benchtime "${BENCH_COUNT:-5}x" | awk '
  /^BenchmarkQueryKept\// {
    split($1, p, "/"); q = p[2]; e = p[3]; sub(/-[0-9]+$/, "", e)
    for (i = 1; i <= NF; i++) { if ($(i+1) == "ns/op") ns = $i; if ($(i+1) == "hits") h = $i; if ($(i+1) == "cpu-ms/op") cpu = $i }
    t[q, e] = sprintf("%.2f ms (%.2f)", ns / 1e6, cpu); hits[q] = h
    if (!(q in seen)) { seen[q] = 1; order[++n] = q } }
  END { for (k = 1; k <= n; k++) { q = order[k]; printf "| %s | %d | %s | %s |\n", q, hits[q], t[q, "lines"], t[q, "kept"] } }'
