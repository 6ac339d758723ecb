# tmux-mcp: build, test, lint, bench. `make ci` is what CI runs.
GO        ?= go
BIN       ?= bin/tmux-mcp
PKGS      := ./...
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(shell $(GO) env GOPATH)/bin/staticcheck
BENCHTIME ?= 2s
STRESS    ?= 5
# The other platforms tmux-mcp builds for (`make cross`), as GOOS/GOARCH.
# macOS on arm64: amd64 compiles the same code (nothing in tmux-mcp
# differs by CPU), and every platform costs a cold build of every
# dependency (about 260 CPU seconds); `make cross CROSS="darwin/arm64
# darwin/amd64"` checks both, and the release builds both.
CROSS     ?= darwin/arm64

.PHONY: all build run test race lint fmt-check vet staticcheck bench fuzz ci ci-matrix cross stress conformance soak soak-long soak-smoke soak-crash soak-crash-smoke soak-crash-matrix scale scale-long scale-smoke clean matrix tmux-versions inspector waitbench \
	release-snapshot npm-pack mcpb release-check release-test clients release-tools

all: build

build:
	$(GO) build -trimpath -o $(BIN) ./cmd/tmux-mcp

# Runs the MCP server over stdio on a dedicated `-L tmux-mcp` tmux server.
# stdout is the MCP channel: make echoes nothing of its own for run, and
# the build writes only to stderr. (`make -C dir run` still prints make's
# "Entering directory" line before reading this file: use `make -s -C dir run`.)
ifneq ($(filter run,$(MAKECMDGOALS)),)
MAKEFLAGS += --silent --no-print-directory
endif
run: build
	exec $(abspath $(BIN)) serve

test:
	$(GO) test -race -count=1 $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt: not formatted:"; echo "$$out"; exit 1; fi

# ./... leaves out the files of the build tag conformance (package
# conformance, the suite's fixtures): vet and staticcheck them as built.
TAGGED_PKGS := ./conformance/ ./cmd/tmux-mcp/

vet:
	$(GO) vet $(PKGS)
	$(GO) vet -tags conformance $(TAGGED_PKGS)

$(STATICCHECK):
	$(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

staticcheck: $(STATICCHECK)
	$(STATICCHECK) $(PKGS)
	$(STATICCHECK) -tags conformance $(TAGGED_PKGS)

lint: fmt-check vet staticcheck

bench:
	$(GO) test -run '^$$' -bench . -benchtime $(BENCHTIME) ./supervisor/... ./tools/... ./cmd/tmux-mcp

# Short fuzz runs of every fuzz target (the committed corpora run in `make test`).
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzQuote -fuzztime 30s ./tmux/
	$(GO) test -run '^$$' -fuzz FuzzControlParse -fuzztime 30s ./tmux/
	$(GO) test -run '^$$' -fuzz FuzzRecords -fuzztime 30s ./tmux/
	$(GO) test -run '^$$' -fuzz FuzzQuote -fuzztime 30s ./shellquote/

# Everything CI checks, side by side where it can be (scripts/ci): lint
# and the suites (scripts/citest: the race suite on the PATH tmux and,
# on each tmux of CI_MATRIX_VERSIONS, no agent CLI, every other test on
# the newest, all but the end-to-end packages on the oldest, the packages
# below the MCP surface on those between, as small jobs on one pool of workers) at once, with the
# Inspector and the soak smokes. It prints each step's wall and CPU time
# and the slowest twenty tests. Under a quarter of an hour on two cores.
CI_MATRIX_VERSIONS ?= 3.2a 3.4 3.6b 3.7c next-3.8
ci:
	CI_MATRIX_VERSIONS="$(CI_MATRIX_VERSIONS)" GO=$(GO) BIN=$(BIN) scripts/ci

# The official MCP Inspector CLI: its schema lint of every tool (no
# finding allowed: the portability warnings included), then list_sessions
# (the SDK's default environment, no locale) on the PATH tmux and every
# release of the matrix.
inspector: build
	BIN=$(BIN) scripts/inspector $$(command -v tmux) $$(scripts/tmux-build | cut -d' ' -f2)

# Builds every tmux release in ../shared/tmux-src (once, cached in
# ~/.cache/tmux-mcp/tmux) and prints where each one is.
tmux-versions:
	scripts/tmux-build

# The version matrix: every test that starts tmux, without -race, against
# each release but the one `make test` already ran with -race (the PATH
# tmux, Debian 12's 3.3a) and the development line (next-3.8), plus the
# soak smoke on the oldest and newest release. MATRIX_VERSIONS picks other
# versions, MATRIX_SOAK those that also run the soak smoke; MATRIX_RACE=1
# adds -race. MATRIX_JOBS versions run at once.
MATRIX_VERSIONS ?= 3.2a 3.4 3.5a 3.6b 3.7c next-3.8
MATRIX_JOBS ?= 2
matrix:
	MATRIX_SOAK="$${MATRIX_SOAK-3.2a 3.7c}" MATRIX_JOBS=$(MATRIX_JOBS) GO=$(GO) BIN=$(BIN) scripts/matrix $(MATRIX_VERSIONS)

# The matrix of make ci (CI_MATRIX_VERSIONS, above: the oldest release,
# 3.4 for the rows 3.5a shares, 3.6b, the newest and the development line)
# the old way, one scripts/matrix version after another.
ci-matrix:
	MATRIX_SOAK="$${MATRIX_SOAK-3.2a 3.7c}" MATRIX_JOBS=$(MATRIX_JOBS) GO=$(GO) BIN=$(BIN) scripts/matrix $(CI_MATRIX_VERSIONS)

# For each platform in CROSS: builds every package (the binary linked),
# and vets them, tests included: vet type-checks every test file for the
# platform, which is what a test binary built here would prove (none can
# run on this machine; .github/workflows/macos.yml runs them on macOS).
# CROSS_TESTS=1 also compiles and links every test binary, as make ci did
# until its cold run neared its quarter of an hour.
cross:
	@set -e; for p in $(CROSS); do \
		os=$${p%/*}; arch=$${p#*/}; out=bin/cross/$$os-$$arch; \
		echo "cross: $$os/$$arch: build, vet"; mkdir -p $$out; \
		GOOS=$$os GOARCH=$$arch $(GO) build -o $$out/ $(PKGS); \
		GOOS=$$os GOARCH=$$arch $(GO) vet $(PKGS); \
		if [ -n "$(CROSS_TESTS)" ]; then GOOS=$$os GOARCH=$$arch $(GO) test -c -o $$out/ $(PKGS) >/dev/null; fi; \
	done

# The whole race suite STRESS times in a row (default 5), naming every
# failing test; non-zero exit on any failure. Run it before you stop.
# STRESS_LOAD=2 adds two busy loops beside it (a loaded machine).
STRESS_LOAD ?= 0
stress:
	STRESS=$(STRESS) STRESS_LOAD=$(STRESS_LOAD) GO=$(GO) scripts/stress

# The official MCP conformance suite (pinned) against `tmux-mcp --http`
# built with its fixtures (-tags conformance, package conformance; into
# bin/tmux-mcp-conformance, never $(BIN)) on a private tmux server: every
# server scenario revision 2026-07-28 requires, and the ten tasks-*
# scenarios of the tasks extension. Fails when one of them fails, but for
# the known failures scripts/conformance lists with their causes
# (CONFORMANCE_STRICT=1 counts those too). Needs npm, which installs the
# suite (~/.cache/tmux-mcp/conformance) and the Node.js 22 it runs on
# (~/.cache/tmux-mcp/node22) on first use. About 20 s warm.
conformance:
	GO=$(GO) scripts/conformance

# Wait reaction and cached reads of tmux-mcp beside another MCP server for
# tmux, through the official TypeScript MCP SDK on a private tmux server
# (scripts/waitbench, docs/performance.md). SERVER2 is the other server's
# command, {socket} standing for the tmux socket; WAITBENCH_TMUX the tmux
# binary both use; WAITBENCH_ARGS more options (-n 200, --reads 500, ...).
# Needs Node.js 20+ and npm (the pinned SDK installs itself on first use).
SERVER2        ?=
WAITBENCH_TMUX ?= tmux
waitbench: build
	scripts/waitbench/waitbench --tmux '$(WAITBENCH_TMUX)' \
		--server 'tmux-mcp=$(abspath $(BIN)) serve --socket-path {socket} --journal off' \
		$(if $(SERVER2),--server '$(notdir $(firstword $(SERVER2)))=$(SERVER2)') $(WAITBENCH_ARGS)

# The soak and fault harness (scripts/repro): the polling incident raw and
# supervised at 1 Hz and 100 Hz, then agents under injected faults; writes
# soak-report/<profile>/report.html and exits non-zero on a failed verdict.
# soak takes about a minute, soak-long 10+ minutes (the incident's shape),
# soak-smoke ~30 s (part of ci).
soak:
	GO=$(GO) BIN=$(BIN) scripts/soak short

soak-long:
	GO=$(GO) BIN=$(BIN) scripts/soak long

soak-smoke:
	GO=$(GO) BIN=$(BIN) scripts/soak smoke

# The crash-safety soak (scripts/churn): CHURN_MCP tmux-mcp processes
# (one busy agent each) and a person-like tmux user (control clients with
# `tmux -C`, clients in a PTY, sessions created, renamed and killed, panes
# selected, copy mode) churn on one private tmux server for
# CHURN_DURATION; a monitor checks the server's PID every 100 ms, and
# `tmux-mcp diagnose` runs at the end. Exits non-zero when the server
# died, tmux-mcp restarted it or diagnose shows a crash. CHURN_TMUX is
# the tmux binary (default: the PATH's), CHURN_PACE realistic or
# aggressive, CHURN_PERSON_CONTROL=false leaves out the person's control
# clients (tmux 3.2a-3.6b crash on their own when a session changes while
# one identifies: docs/platforms.md), CHURN_ARGS more flags (-seed,
# -person-pty=false, -keep). Report: CHURN_OUT/summary.txt, report.json,
# diagnose.md. soak-crash-smoke is 20 s, without the person's control
# clients unless CHURN_SMOKE_PERSON_CONTROL=true (tmux-mcp's own crash
# safety; not part of ci). soak-crash-matrix
# runs CHURN_VERSIONS one after another, person control on and off, and
# prints the table.
CHURN_DURATION       ?= 10m
CHURN_TMUX           ?=
CHURN_MCP            ?= 3
CHURN_PACE           ?= realistic
CHURN_PERSON_CONTROL ?= true
CHURN_SMOKE_PERSON_CONTROL ?= false
CHURN_OUT            ?= soak-report/churn
CHURN_ARGS           ?=
CHURN_VERSIONS       ?= 3.2a 3.3a 3.4 3.6b
CHURN_FLAGS = -duration $(CHURN_DURATION) $(if $(CHURN_TMUX),-tmux $(CHURN_TMUX)) -mcp $(CHURN_MCP) -pace $(CHURN_PACE) $(CHURN_ARGS)
soak-crash:
	GO=$(GO) BIN=$(BIN) OUT=$(CHURN_OUT) scripts/soak-crash $(CHURN_FLAGS) -person-control=$(CHURN_PERSON_CONTROL)

soak-crash-smoke:
	GO=$(GO) BIN=$(BIN) OUT=soak-report/churn-smoke scripts/soak-crash -duration 20s $(if $(CHURN_TMUX),-tmux $(CHURN_TMUX)) \
		-mcp $(CHURN_MCP) -pace $(CHURN_PACE) -person-control=$(CHURN_SMOKE_PERSON_CONTROL) $(CHURN_ARGS)

soak-crash-matrix:
	GO=$(GO) BIN=$(BIN) OUT=$(CHURN_OUT) CHURN_VERSIONS="$(CHURN_VERSIONS)" scripts/soak-crash $(CHURN_FLAGS)

# Many agents on one host (scripts/scale, docs/scale.md): one tmux-mcp
# serving streamable HTTP on a tmux server of its own, 1 to 64 concurrent
# MCP clients polling and waiting on their own panes, over 8 to 256
# sessions (scale-long: 512 and 2,048 panes), with and without printing
# panes. Prints the table, writes scale-report/report.html and exits
# non-zero when a bound breaks. scale takes 7.5 minutes on 2 shared
# cores, scale-long about 25, scale-smoke about 28 s. Not part of ci: the
# figures are the machine's, and ci already runs the soak smoke.
scale: build
	$(GO) build -o bin/scale ./scripts/scale
	bin/scale -bin $(BIN) -profile default -out scale-report

scale-long: build
	$(GO) build -o bin/scale ./scripts/scale
	bin/scale -bin $(BIN) -profile long -out scale-report/long

scale-smoke: build
	$(GO) build -o bin/scale ./scripts/scale
	bin/scale -bin $(BIN) -profile smoke -out scale-report/smoke

# Release packaging (RELEASING.md): archives, npm packages, MCP bundles and
# the registry entry, built into dist/ and checked offline; nothing is
# published. The pinned tools install themselves, on first use, into
# TOOLS (a cache outside the repository; a new pin installs beside the old).
TOOLS               ?= $(HOME)/.cache/tmux-mcp/tools
GORELEASER_VERSION  := v2.15.1
SYFT_VERSION        := v1.57.1
MCPB_VERSION        := 2.1.2
GORELEASER          := $(TOOLS)/goreleaser-$(GORELEASER_VERSION)/goreleaser
SYFT                := $(TOOLS)/syft-$(SYFT_VERSION)/syft
MCPB                := $(TOOLS)/mcpb-$(MCPB_VERSION)/node_modules/.bin/mcpb
# The clients `make clients` adds tmux-mcp to (npm packages, pinned), and
# the MCP Inspector, whose refusal message it reads too.
CLIENT_PACKAGES     := @anthropic-ai/claude-code@2.1.332 @google/gemini-cli@0.61.0 @openai/codex@0.171.0 \
	@modelcontextprotocol/inspector@2.12.0
CLIENTS_DIR         := $(TOOLS)/clients-$(shell echo '$(CLIENT_PACKAGES)' | cksum | cut -d' ' -f1)

$(GORELEASER):
	GOBIN=$(dir $@) $(GO) install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)

$(SYFT):
	GOBIN=$(dir $@) $(GO) install github.com/anchore/syft/cmd/syft@$(SYFT_VERSION)

$(MCPB):
	npm install --prefix $(TOOLS)/mcpb-$(MCPB_VERSION) --no-audit --no-fund --silent @anthropic-ai/mcpb@$(MCPB_VERSION)

release-tools: $(GORELEASER) $(SYFT) $(MCPB)

# dist/: tmux-mcp_<version>_<os>_<arch>.tar.gz for linux and darwin, amd64
# and arm64, checksums.txt, an SPDX SBOM per archive. Without a tag the
# version is 0.0.1-snapshot.g<commit>.
# goreleaser reads the commit only where `git ls-remote --get-url` answers:
# a clone without a remote (a worktree of a local repository) gets one for
# this command only, through git's environment (no config file changes).
GIT_REMOTE_ENV := $(if $(shell git remote 2>/dev/null),,GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/tmux-mcp/tmux-mcp.git)
release-snapshot: $(GORELEASER) $(SYFT)
	PATH="$(dir $(SYFT)):$$PATH" $(GIT_REMOTE_ENV) $(GORELEASER) release --snapshot --clean

dist/artifacts.json:
	$(MAKE) release-snapshot

# dist/npm/*.tgz (the launcher and one package per platform) and
# dist/registry/server.json, from the binaries in dist/.
npm-pack: dist/artifacts.json
	node packaging/npm/pack.mjs dist

# dist/mcpb/tmux-mcp_<version>_<os>_<arch>.mcpb, from the binaries in dist/.
mcpb: dist/artifacts.json $(MCPB)
	node packaging/mcpb/pack.mjs $(MCPB) dist

# Builds everything afresh and runs the packaging tests (./packaging):
# the linux/amd64 archive's `tmux-mcp version`, the checksums and SBOMs,
# the npm packages installed offline and served through the launcher,
# the bundles validated and served, server.json against the registry's
# schema. Not part of ci (see the README for how long it takes).
# release-test runs the same on the dist/ already there (a real release's).
release-check: release-snapshot
	$(MAKE) release-test

release-test: npm-pack mcpb
	TMUX_MCP_RELEASE_CHECK=1 MCPB=$(MCPB) $(GO) test -count=1 -v ./packaging/

# Adds tmux-mcp (dist/npm's launcher, installed offline) to Claude Code,
# Gemini CLI and Codex CLI in a temporary HOME with each client's own
# command and checks that its listing shows it connected, calls a tool
# through Codex's app server, and reads what each client (the Inspector
# too) tells its user when tmux-mcp --http refuses a request without the
# token. Needs no login; installs the pinned clients from npm into TOOLS
# once.
$(CLIENTS_DIR)/.installed:
	npm install --prefix $(CLIENTS_DIR) --no-audit --no-fund --silent $(CLIENT_PACKAGES)
	touch $@

clients: dist/artifacts.json $(CLIENTS_DIR)/.installed
	$(MAKE) npm-pack
	TMUX_MCP_RELEASE_CHECK=1 TMUX_MCP_CLIENTS=$(CLIENTS_DIR)/node_modules/.bin $(GO) test -count=1 -v -run TestClients ./packaging/

clean:
	rm -rf bin soak-report scale-report dist
