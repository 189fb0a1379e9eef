# sessions — build, test and measure.
GO       ?= go
BIN      ?= bin/sessions
PEER     ?= $(abspath ../shared/peer/openclaw-peer)
PKGS     := ./...
VERSION  ?= $(shell sh scripts/version.sh)
LDFLAGS  := -s -w -X github.com/openclaw/sessions/internal/cmd/version.Version=$(VERSION)

.PHONY: all build test test-short interop bench lint vet fmt completions check-completions man clean stress fuzz cross dist dist-check rules-test

all: build

# Without cgo, as the releases are (.goreleaser.yaml): a static binary. With
# cgo the binary is dynamically linked and every start pays the dynamic
# loader (libc loaded and relocated: a third of `sessions version`'s
# system time, docs/PERFORMANCE.md "Start-up") for nothing it uses: only the
# standard library's os/user and net have cgo variants, and their Go ones
# read /etc/passwd and resolv.conf as the releases do.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/sessions

# The release targets (docs/PLATFORMS.md), all without cgo.
TARGETS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64

# Every package of every target compiles; vet type-checks the _test.go
# files and their build tags on the other two systems (linux/amd64 is
# vetted by make test). -trimpath as make dist builds: the compiled
# packages of each target serve both. Nothing is written.
VET_TARGETS := darwin/arm64 windows/amd64
cross:
	@for t in $(TARGETS); do \
		echo "== build $$t"; \
		GOOS=$${t%/*} GOARCH=$${t#*/} CGO_ENABLED=0 $(GO) build -trimpath -o /dev/null $(PKGS) || exit 1; \
	done; \
	for t in $(VET_TARGETS); do \
		echo "== vet $$t"; \
		GOOS=$${t%/*} GOARCH=$${t#*/} CGO_ENABLED=0 $(GO) vet -trimpath $(PKGS) || exit 1; \
		GOOS=$${t%/*} GOARCH=$${t#*/} CGO_ENABLED=0 $(GO) vet -trimpath -tags interop $(PKGS) || exit 1; \
	done

# Release artefacts into dist/ with GoReleaser (.goreleaser.yaml,
# docs/RELEASING.md), in snapshot mode: nothing is published. Per target a
# stamped binary with completions/, the man pages, README.md and LICENSE as
# sessions_<version>_<os>_<arch>.tar.gz (.zip for Windows); .deb, .rpm and
# .apk packages for linux/amd64 and linux/arm64; a Homebrew cask and a
# Scoop manifest; dist/checksums.txt (cd dist && sha256sum -c checksums.txt).
# The version stamped is $(VERSION), as make build's; the commit's date
# dates everything: the same commit gives the same checksums. GoReleaser is
# pinned (v2.15.1 is the newest that builds on our Go) and built by go run
# from the module cache (a few minutes the first time).
GORELEASER ?= $(GO) run github.com/goreleaser/goreleaser/v2@v2.15.1
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
DATE   ?= $(shell TZ=UTC git log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd 2>/dev/null)
COMMIT_TIMESTAMP ?= $(shell git log -1 --format=%ct 2>/dev/null)
dist:
	SESSIONS_VERSION='$(VERSION)' SESSIONS_COMMIT='$(COMMIT)' SESSIONS_DATE='$(DATE)' SESSIONS_COMMIT_TIMESTAMP='$(COMMIT_TIMESTAMP)' \
		$(GORELEASER) release --snapshot --clean

# The GoReleaser configuration is valid (and uses nothing deprecated).
dist-check:
	$(GORELEASER) check

# Every test that needs no network and no OpenClaw peer. What tests keep
# for people to look at (export's pages in Chromium: screenshots at desktop
# and phone width) goes to ARTIFACTS.
ARTIFACTS ?= $(CURDIR)/.artifacts
test: rules-test
	$(GO) vet $(PKGS)
	$(GO) vet -tags interop $(PKGS)
	SESSIONS_TEST_ARTIFACTS='$(ARTIFACTS)' $(GO) test -count=1 -timeout 25m $(PKGS)

# The Prometheus alert rules of sessions metrics (monitoring/): valid, and
# their unit tests pass (promtool test rules: series in, alerts out).
# promtool is built once from the Prometheus Go module at the pinned
# version into the user cache dir (scripts/prometheus_tool.sh: several
# minutes the first time); where it cannot be built, one line says so and
# the target passes.
rules-test:
	@promtool=$$(GO="$(GO)" bash scripts/prometheus_tool.sh promtool); rc=$$?; \
	if [ $$rc -eq 75 ]; then echo "rules-test: skipped (promtool cannot be built here)"; exit 0; fi; \
	if [ $$rc -ne 0 ]; then exit $$rc; fi; \
	"$$promtool" check rules monitoring/alerts.yml monitoring/params.yml && \
	"$$promtool" test rules monitoring/alerts_test.yml

# The long reliability runs (docs/RELIABILITY.md): crash injection with
# STRESS_ITERS (default 300) SIGKILLs of patch/send/spawn and their runners,
# as many of the store writer, then the bad-input corpus, the policy table
# and the fault tests again. `make test` runs the short versions.
STRESS_ITERS ?= 300
stress:
	@log=$$(mktemp); \
	SESSIONS_CRASH_ITERS=$(STRESS_ITERS) SESSIONS_KILL_ITERS=$(STRESS_ITERS) \
	$(GO) test -count=1 -timeout 60m -v \
		-run '^(TestCrashInjection|TestUpdateSIGKILL|TestBadInput|TestPolicyTable|TestDeliveryHookFaults|TestFileModes|TestNoSymlinkWrites|TestHookFaults|TestZombieHolderIsDead)$$' \
		./e2e/ ./internal/store/ ./internal/delivery/ ./internal/lock/ > $$log 2>&1; rc=$$?; \
	grep -E '^(--- |ok|FAIL)|kills|cases|rows|seed' $$log | grep -v -- '--- PASS: Test[A-Za-z]*/'; \
	if [ $$rc -ne 0 ]; then grep -B2 -A20 -- '--- FAIL' $$log | head -200; fi; rm -f $$log; exit $$rc

# Every fuzz target for FUZZTIME each (go test -fuzz takes one target at a time).
FUZZTIME ?= 60s
FUZZ_TARGETS := internal/keys:FuzzKeys internal/store:FuzzParse internal/store:FuzzUpdateRoundTrip \
	internal/store:FuzzParseFast internal/jsonscan:FuzzScanner internal/transcript:FuzzReadMessages internal/config:FuzzLoad \
	internal/sanitize:FuzzHistory internal/sanitize:FuzzStripEnvelopeText internal/rowjson:FuzzAppendList \
	internal/transcript:FuzzCursor internal/usage:FuzzScan internal/usage:FuzzExtractFast internal/search:FuzzScan internal/search:FuzzPairChunk \
	internal/sqlitefile:FuzzReader internal/sqlitefile:FuzzCorrupt internal/searchindex:FuzzIndex internal/searchindex:FuzzIndexMasked \
	internal/storecache:FuzzDiskTier internal/output:FuzzTableMatchesTablewriter internal/store:FuzzJoinNameIsJoin \
	internal/transcripts:FuzzHeaderCache
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=./$${t%%:*}; fn=$${t##*:}; echo "== $$fn ($$pkg, $(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	done

# Interoperability with the real OpenClaw 2026.1.30 (../shared/peer); skips
# with one line when the peer cannot be installed here. The MCP tests also
# run the MCP Inspector's CLI (npm installs it once into the user cache
# dir; they skip with one line without npm or its registry). The Prometheus
# server the metrics test scrapes with is built first (once, into the user
# cache dir), outside the test packages' timeout. Only the interop tests
# run (every one is named *Interop*, which internal/cli's layout test
# holds): make test has run the others.
interop:
	@if [ ! -x "$(PEER)" ]; then echo "interop: skipped ($(PEER) not found)"; exit 0; fi; \
	"$(PEER)" install >/dev/null 2>&1; rc=$$?; \
	if [ $$rc -eq 75 ] && "$(PEER)" status >/dev/null 2>&1; then rc=0; fi; \
	if [ $$rc -eq 75 ]; then echo "interop: skipped (OpenClaw peer unavailable: $(PEER) install exited 75)"; exit 0; fi; \
	if [ $$rc -ne 0 ]; then echo "interop: $(PEER) install failed (exit $$rc)"; exit $$rc; fi; \
	GO="$(GO)" bash scripts/prometheus_tool.sh prometheus >/dev/null || true; \
	OPENCLAW_PEER="$(PEER)" $(GO) test -tags interop -run Interop -count=1 -timeout 70m $(PKGS)

# Benchmarks side by side with the real OpenClaw (scripts/bench.sh), then send's
# and spawn's; writes docs/PERFORMANCE.md figures to stdout. Each skips with one
# line (exit 0) when the peer is unavailable (scripts/bench_lib.sh).
BENCH_ENV = PEER="$(PEER)" BIN="$(abspath $(BIN))"
.PHONY: bench-start bench-send bench-spawn bench-sqlite bench-sqlite-send bench-usage bench-search bench-gateway bench-mcp bench-export
bench: build
	$(BENCH_ENV) bash scripts/bench.sh
	$(BENCH_ENV) bash scripts/bench_send.sh
	$(BENCH_ENV) bash scripts/bench_spawn.sh
	$(BENCH_ENV) bash scripts/bench_sqlite.sh
	$(BENCH_ENV) bash scripts/bench_sqlite_send.sh
	$(BENCH_ENV) bash scripts/bench_usage.sh
	$(BENCH_ENV) bash scripts/bench_search.sh
	$(BENCH_ENV) bash scripts/bench_index.sh
	$(BENCH_ENV) bash scripts/bench_gateway.sh
	$(BENCH_ENV) bash scripts/bench_mcp.sh
	$(BENCH_ENV) bash scripts/bench_export.sh

bench-send: build
	$(BENCH_ENV) bash scripts/bench_send.sh

bench-spawn: build
	$(BENCH_ENV) bash scripts/bench_spawn.sh

bench-sqlite: build
	$(BENCH_ENV) bash scripts/bench_sqlite.sh

# send --timeout 0 beside list on a 10,000-session 2026.8+ SQLite store (no peer needed).
bench-sqlite-send: build
	$(BENCH_ENV) bash scripts/bench_sqlite_send.sh

# usage over 1,000 x 1 MB transcripts (cold beside cat, warm), peak RSS there and on one 1 GB transcript.
bench-usage: build
	$(BENCH_ENV) bash scripts/bench_usage.sh

# export of one 200 MB transcript in each format beside history's pages and cat: wall time, peak RSS (no peer needed).
bench-export: build
	$(BENCH_ENV) bash scripts/bench_export.sh

# sessions search beside grep -rF -c and rg -F -c, then the search index engines (trigram, FTS5) beside the
# scan on a generated state (no peer needed; skips without python3 or /usr/bin/time).
bench-search: build
	$(BENCH_ENV) bash scripts/bench_search.sh
	$(BENCH_ENV) bash scripts/bench_index.sh

bench-gateway: build
	$(BENCH_ENV) bash scripts/bench_gateway.sh

# What a process call costs, a base revision (BASE, default main) and the tree side by side: an empty Go
# program, version, list --json on the demo state and the 10k stores of both eras (no peer needed but for
# synth-store; skips with one line without hyperfine).
BASE ?= main
bench-start:
	PEER="$(PEER)" bash scripts/bench_start.sh $(BASE)

# sessions mcp beside list --json on the 10k stores of both eras: warm call, 16 callers, ready, peak RSS (no peer needed).
bench-mcp:
	$(BENCH_ENV) bash scripts/bench_mcp.sh

lint: vet
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)
	$(GO) vet -tags interop $(PKGS)

fmt:
	gofmt -w $$(git ls-files '*.go')

completions:
	$(GO) generate ./cmd/sessions

check-completions: completions
	git diff --exit-code -- completions/

# Man pages (one per command; sessions(1) carries exit codes and environment)
# into docs/man/. Not committed: packagers run this; a test checks that the
# pages are complete and reproducible (fixed date).
man:
	$(GO) run ./cmd/gen-man -o docs/man

clean:
	rm -rf bin dist docs/man
