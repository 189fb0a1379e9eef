#!/bin/sh
# The version make build stamps and make dist names its archives and
# packages by. A tagged commit is named by git describe (v1.2.3, or
# v1.2.3-4-gabcdef0 after it). A clone without tags gets Go's pseudo-version
# form, v0.0.0-<commit time, UTC>-<12 hex of the commit>: a bare commit hash
# cannot be a package version (dpkg refuses one that does not start with a
# digit), and this one sorts by date. "+dirty" marks uncommitted changes.
# Outside a git work tree: "dev".
set -eu
if ! git rev-parse --git-dir >/dev/null 2>&1; then
  echo dev
  exit 0
fi
if v=$(git describe --tags --dirty=+dirty 2>/dev/null); then
  echo "$v"
  exit 0
fi
t=$(TZ=UTC git log -1 --date=format-local:%Y%m%d%H%M%S --format=%cd)
h=$(git rev-parse --short=12 HEAD)
d=
git diff --quiet HEAD -- 2>/dev/null || d=+dirty
echo "v0.0.0-$t-$h$d"
