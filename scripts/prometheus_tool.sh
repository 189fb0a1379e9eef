#!/usr/bin/env bash
# prometheus_tool.sh NAME: print the path of Prometheus's NAME (promtool or
# prometheus) at the pinned version, built once from the Go module
# github.com/prometheus/prometheus into the user cache dir and reused.
# Built without the cloud service discoveries (-tags remove_all_sd: static
# and file targets only), which halves the build. Exits 75 (and says why
# on stderr) when it cannot be built here.
set -u
name=$1
version=${PROMETHEUS_VERSION:-v0.316.0}
go=${GO:-go}
dir="${SESSIONS_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/sessions-tools}/prometheus-$version"
if [ -x "$dir/$name" ]; then echo "$dir/$name"; exit 0; fi
mkdir -p "$dir" || exit 75
tmp=$(mktemp -d "$dir/.build.XXXXXX") || exit 75
trap 'rm -rf "$tmp"' EXIT
if ! GOBIN="$tmp" CGO_ENABLED=0 "$go" install -tags remove_all_sd "github.com/prometheus/prometheus/cmd/$name@$version" >"$tmp/log" 2>&1; then
	echo "$name $version cannot be built here: $(tail -1 "$tmp/log")" >&2
	exit 75
fi
mv -f "$tmp/$name" "$dir/$name" && echo "$dir/$name"
