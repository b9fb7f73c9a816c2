# talon — every build and test step goes through this file.
GO        ?= go
BIN       := bin/talon
PKG       := ./...
# The plugin kits are Go modules of their own (see go.mod's replace block).
KITS      := plugins/pdk plugins/sdk plugins/proto
GOLANGCI  := github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.15.0
BENCHTIME ?= 1s

.PHONY: all build run test tools proto dist test-tagged bench lint fuzz clean console-screenshots

all: build

# What `talon version` prints for a build from this checkout (a release
# build stamps the same through xtask).
COMMIT    := $(shell git rev-parse HEAD 2>/dev/null)$(shell git diff --quiet HEAD 2>/dev/null || echo +modified)
DATE      := $(shell git log -1 --format=%cI 2>/dev/null)
LDFLAGS   := -X github.com/talonhq/talon/cli.commit=$(COMMIT) -X github.com/talonhq/talon/cli.date=$(DATE)

## build: compile bin/talon, and bin/talon-sandbox (the sandbox helper as a
##        static C program, see docs/sandbox.md) where musl-gcc or cc links
##        static programs (musl's start-up is the cheaper)
build:
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/talon
	@if { command -v musl-gcc >/dev/null 2>&1 && musl-gcc -O2 -static -Wall -Werror -o $(BIN)-sandbox sandbox/native/talon-sandbox.c 2>/dev/null; } || \
		{ command -v $(CC) >/dev/null 2>&1 && $(CC) -O2 -static -Wall -Werror -o $(BIN)-sandbox sandbox/native/talon-sandbox.c 2>/dev/null; }; then \
		chmod 755 $(BIN)-sandbox; \
	else \
		rm -f $(BIN)-sandbox; echo "build: no C compiler links a static $(BIN)-sandbox (scripts/tools.sh installs musl-tools, gcc and libc6-dev); talon re-executes itself as the sandbox helper"; \
	fi

## run: build talon and start its main job on the embedded defaults
##      (make run LISTEN=127.0.0.1:8080 to choose the address, ARGS="..." for more flags)
run: build
	@LISTEN="$(LISTEN)" scripts/run.sh $(BIN) $(ARGS)

## test: the whole suite, with the race detector
# -timeout: with empty caches xtask's cross-compile smoke (three targets,
# every dependency compiled for each) alone takes 6-10 minutes on 2 cores
# while other packages compete for them, past go test's 10-minute default.
test: tools
	@scripts/proto.sh --check
	$(GO) vet $(PKG)
	$(GO) test -race -count=1 -timeout 30m $(PKG)
	@for m in $(KITS); do echo "== $$m"; (cd $$m && $(GO) vet ./... && $(GO) test -race -count=1 ./...) || exit 1; done
	$(MAKE) test-tagged

## tools: install what the suite needs besides Go (wabt, protobuf-compiler)
tools:
	@scripts/tools.sh

## proto: regenerate the subprocess plugin protocol (plugins/proto) with protoc and the pinned Go generators
proto:
	@scripts/proto.sh

## test-tagged: the checks that need a binary built with the test-only feature
test-tagged:
	$(GO) test -race -count=1 -tags talon_testtools -run 'TestTaggedScripts' ./cmd/talon

## console-screenshots: regenerate docs/console/*.png with the console's browser test (headless Chromium)
console-screenshots: tools
	TALON_CONSOLE_SCREENSHOTS=$(CURDIR)/docs/console $(GO) test -count=1 -run 'TestBrowser$$' ./console

## bench: every benchmark (root module and bench/extism), then bench/REPORT.md
bench:
	@BENCHTIME=$(BENCHTIME) GO=$(GO) scripts/bench.sh

## lint: golangci-lint (errcheck, govet, staticcheck, gosec, exhaustive, unused, misspell)
lint:
	$(GO) run $(GOLANGCI) run ./...

## fuzz: run each native fuzzer for a short while
fuzz:
	@scripts/fuzz.sh

## dist: cross-compile every release leg into dist/ (archives and SHA256SUMS)
dist:
	$(GO) run ./xtask release build

clean:
	rm -rf bin dist
