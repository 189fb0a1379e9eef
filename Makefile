# sessions — build, test and measure.
GO       ?= go
BIN      ?= bin/sessions
PEER     ?= $(abspath ../shared/peer/openclaw-peer)
PKGS     := ./...
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -s -w -X github.com/openclaw/sessions/internal/cmd/version.Version=$(VERSION)

.PHONY: all build test test-short interop bench lint vet fmt completions check-completions man clean

all: build

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/sessions

# Every test that needs no network and no OpenClaw peer.
test:
	$(GO) vet $(PKGS)
	$(GO) test -count=1 $(PKGS)

# Interoperability with the real OpenClaw 2026.1.30 (../shared/peer); skips
# with one line when the peer cannot be installed here.
interop:
	@if [ ! -x "$(PEER)" ]; then echo "interop: skipped ($(PEER) not found)"; exit 0; fi; \
	"$(PEER)" install >/dev/null 2>&1; rc=$$?; \
	if [ $$rc -eq 75 ]; then echo "interop: skipped (OpenClaw peer unavailable: $(PEER) install exited 75)"; exit 0; fi; \
	if [ $$rc -ne 0 ]; then echo "interop: $(PEER) install failed (exit $$rc)"; exit $$rc; fi; \
	OPENCLAW_PEER="$(PEER)" $(GO) test -tags interop -count=1 -timeout 30m $(PKGS)

# Benchmarks side by side with the real OpenClaw; writes docs/PERFORMANCE.md figures to stdout.
bench: build
	PEER="$(PEER)" BIN="$(abspath $(BIN))" bash scripts/bench.sh

lint: vet
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

fmt:
	gofmt -w $$(git ls-files '*.go')

completions:
	$(GO) generate ./cmd/sessions

check-completions: completions
	git diff --exit-code -- completions/

clean:
	rm -rf bin
