# conform — conformance toolkit for agent-loop kernels.
GO      ?= go
BIN     := bin/conform
REPORTS := reports

# Where "make conform" writes its reports: an ignored folder, so a run does
# not dirty the worktree. "make reports" rewrites the committed ones.
OUT     ?= $(REPORTS)/tmp

.PHONY: all build conform reports clauses naive test vet unit suite mutants bench python-test clean

all: build

# The commit every report names (harness/provenance), for builds that carry
# no version-control stamp; "+dirty" when tracked files have changes.
COMMIT := $(shell r=$$(git rev-parse --short=12 HEAD 2>/dev/null) && { git diff --quiet HEAD -- 2>/dev/null && echo $$r || echo $$r+dirty; })

build:
	$(GO) build -ldflags "-X github.com/agentconform/conform/harness/provenance.commit=$(COMMIT)" -o $(BIN) ./cmd/conform

# The main job: the whole suite against the reference kernel, run as a
# subprocess exactly like a third-party kernel, with the reports written
# to $(OUT) (conform creates the folder).
conform: build
	$(BIN) run --kernel "$(BIN) kernel" --slow \
		--report-json $(OUT)/reference.json \
		--markdown $(OUT)/reference.md \
		--junit $(OUT)/reference.junit.xml \
		--html $(OUT)/reference.html \
		--badge $(OUT)/reference.badge.svg \
		--badge-json $(OUT)/reference.badge.json

# The committed reports of the reference kernel, regenerated on purpose.
reports:
	$(MAKE) conform OUT=$(REPORTS)

# The clause map's coverage (spec/clauses.json -> reports/clauses.md),
# held against a run of the reference kernel; TestReferenceKernel fails when it
# is stale.
clauses:
	$(GO) test -count=1 -run TestReferenceKernel ./harness/conformtest/ -args -update-clauses

# The second-language proof: the naive Python kernel's report (it fails the
# rows it ignores; exit status 1 is expected, so it is not checked).
naive: build
	-$(BIN) run --kernel "python3 examples/naive-kernel-python/kernel.py" -q \
		--markdown $(REPORTS)/naive-kernel-python.md \
		--html $(REPORTS)/naive-kernel-python.html \
		--report-json $(REPORTS)/naive-kernel-python.json > /dev/null

# Real agent frameworks, each its own module under examples/frameworks/
# (GOFLAGS=-mod=mod: their dependencies come from the module proxy, not from
# this module). Not part of make test: it rewrites reports/frameworks/.
FRAMEWORKS := langchaingo genkit
.PHONY: frameworks
frameworks: build frameworks-node
	@for f in $(FRAMEWORKS); do \
		[ -f examples/frameworks/$$f/go.mod ] || continue; \
		(cd examples/frameworks/$$f && GOFLAGS=-mod=mod $(GO) build -o ../../../bin/$$f-kernel .) || exit 2; \
		$(BIN) run --kernel bin/$$f-kernel -q -j 4 \
			--report-json $(REPORTS)/frameworks/$$f.json \
			--markdown $(REPORTS)/frameworks/$$f.report.md \
			--html $(REPORTS)/frameworks/$$f.html > /dev/null; \
		test $$? -le 1 || exit 2; \
	done

# The TypeScript frameworks on the Node kit (examples/node-kit), each its own
# npm package with a lockfile: npm ci, then the whole suite. Skipped, with a
# message, where node or npm is missing.
NODE_FRAMEWORKS := ai-sdk openai-agents
.PHONY: frameworks-node
frameworks-node: build
	@if ! command -v node >/dev/null || ! command -v npm >/dev/null; then echo "node/npm not found: skipping $(NODE_FRAMEWORKS)"; exit 0; fi; \
	for f in $(NODE_FRAMEWORKS); do \
		(cd examples/frameworks/$$f && npm ci --no-audit --no-fund --loglevel=error) || exit 2; \
		$(BIN) run --kernel "node examples/frameworks/$$f/adapter.mjs" -q -j 4 \
			--report-json $(REPORTS)/frameworks/$$f.json \
			--markdown $(REPORTS)/frameworks/$$f.report.md \
			--html $(REPORTS)/frameworks/$$f.html > /dev/null; \
		test $$? -le 1 || exit 2; \
	done

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1)

# The go test runs of make test get an hour, not go test's default 10
# minutes: that default is a hang guard, and on a busy 2-core machine (load
# 40+) the kill matrix alone went past it and failed make test although
# nothing hung (issue 25). Each scenario keeps its own timeout. They all
# pass -vet=off: make vet has already vetted every package.
TEST_TIMEOUT ?= 1h

# Unit tests under the race detector. go vet runs in make vet, so go test
# does not run its subset again (-vet=off). Tests that run the suite end to
# end skip themselves under -race (internal/testrace) and run in make e2e.
#
# UNIT_JOBS is how many test binaries run at once. Four took 0.89x the time of two in paired runs
# of make test (farm-bench, median of 3, idle), but two make tests side by
# side then ran at load 30 and both failed (TestTestTimeoutStopsTheKernels,
# TestHookChainProperties: their margins trail the load), where two at once
# had passed ten side-by-side runs in a row: two stays the default until
# those tests hold (issue 25). make test UNIT_JOBS=4 E2E_JOBS=4 on a
# machine of your own.
UNIT_JOBS ?= 2
unit:
	$(GO) test -race -vet=off -count=1 -p $(UNIT_JOBS) -timeout $(TEST_TIMEOUT) ./...

python-test:
	@if command -v python3 >/dev/null; then python3 -m unittest discover -s examples/naive-kernel-python; \
	else echo "python3 not found: skipping the naive Python kernel's self-test"; fi

# The suite against the reference kernel as a subprocess; fails on any
# failing or erring requirement at any level.
suite: build
	@mkdir -p $(REPORTS)/tmp
	$(BIN) run --kernel "$(BIN) kernel" --slow --require all -q \
		--report-json $(REPORTS)/tmp/reference.json

# The kill matrices go to $(KILL_OUT) (default the ignored reports/tmp, so
# make test rewrites no tracked file) and are compared with the committed
# ones: a stale committed matrix fails, naming the file. The comparison
# leaves out each table's last column (which requirements and scenarios
# failed): the test itself fails on a survivor or a blamed legal variant,
# and which extra checks a mutant also trips may vary with the machine's
# load, while its name, what it breaks and its targets may not.
# "make mutants plugin-mutants KILL_OUT=reports" rewrites them on purpose.
KILL_OUT ?= $(REPORTS)/tmp
matrix-shape = awk -F'|' -v OFS='|' 'NF>3 {NF-=2; print; next} {print}' $(1)
same-as-committed = @for f in $(1); do [ "$(KILL_OUT)" = "$(REPORTS)" ] || \
	{ $(call matrix-shape,$(KILL_OUT)/$$f) > $(KILL_OUT)/$$f.shape; $(call matrix-shape,$(REPORTS)/$$f) > $(KILL_OUT)/$$f.committed-shape; \
	  cmp -s $(KILL_OUT)/$$f.shape $(KILL_OUT)/$$f.committed-shape; } || \
	{ echo "$(REPORTS)/$$f is stale: it differs from $(KILL_OUT)/$$f (regenerate with make $@ KILL_OUT=$(REPORTS))"; exit 1; }; done
mutants:
	@mkdir -p $(KILL_OUT)
	$(GO) test -vet=off -count=1 -timeout $(TEST_TIMEOUT) -run TestKillMatrix ./refkernel/mutants/ -args -write-kill-matrix=$(CURDIR)/$(KILL_OUT)
	$(call same-as-committed,kill-matrix.md)

# End-to-end tests too slow for the race detector, run without it: the
# tests of these packages that skip themselves under -race (whole-suite
# runs, the naive Python kernel, shards merged equal one run, fuzzing kills
# the bounds and doom-loop mutants), and only those: make unit has already
# run every other test of these packages under the detector, and running
# them a second time cost CPU and checked nothing more (issue 25). The kill
# matrix runs in make mutants. internal/testrace checks that E2E_PKGS and
# E2E_TESTS name every test that skips under -race.
#
# go test starts them in the order listed, so the longest come first and
# none of them is left to start last, alone, on the critical path (issue
# 25); E2E_JOBS of them at once (see UNIT_JOBS).
E2E_JOBS ?= 2
E2E_PKGS := ./cmd/conform ./refkernel/mutants ./harness/runner ./harness/shard \
	./pluginconform/model ./pluginconform/contextprov ./harness/conformtest ./harness/bridge \
	./harness/bundle ./harness/fuzz ./pluginconform ./harness/report ./pluginconform/memoryprov
E2E_TESTS := TestTestAgentsHooksAndSpansReachTheSuite TestBareToolNamesAreTheSessions TestInteractiveCallsReachTheFrontend TestAgentInItsNamespaceReportsWhereItTriedToGo TestFailFastRun TestShardMergeDiffCLI TestBaselineAndBundlesCLI TestPluginCommandOnReference TestPluginEveryCategoryCI TestPluginBundleOfAFailure \
	TestNaiveBundlesReplay TestReferenceKernel TestPropertiesReference TestPropertiesReferenceRealTime \
	TestAttributionOfGeneratedCases TestHTMLCommittedReports FuzzHostileText TestNaivePythonKernel \
	TestHostileKernels TestMergeEqualsSingleRun TestSecretsNeverReachTheReport TestReference \
	TestFuzzKillsBoundsAndDoomLoopMutants TestWallClockScenarioOnASlowMachine TestNoContextStepFailsOnlyItsOwn \
	TestObserveOnlyHooksFailOnlyTheirOwn TestWallClockScenarioOnASlowStart TestWallClockScenarioOnASlowStep17 \
	TestJoinNotBlamedForMissingPostApply TestChildTurnBoundNotBlamedForMissingFinalTurn \
	TestCostNotBlamedForMissingPostModelResponse TestOrdinaryLastRequestFailsTA02 \
	TestChainNotBlamedAtAPointNeverDispatched TestRunInteractiveCallIsNotDescribedAsDenied \
	TestFuzzFindsTheSameViaFeatures TestPluginCommandCategoryFlag TestPluginCommandDetectsModelProvider \
	TestBadInput TestOtherCategory TestLaunchFailures TestLogFloodIsNamed TestMisbehaviourIsNamed TestRenderCrash TestDetect \
	TestAgentsOfEveryDialectRunThroughTheBridge TestMisbehavingAgentsEndInAClearError TestMappedExitStatusEndsTheSession TestDeclaredDaemonIsAnObservation TestStepPrefixesLoseNoMatch
empty :=
space := $(empty) $(empty)
.PHONY: e2e
e2e:
	$(GO) test -vet=off -count=1 -p $(E2E_JOBS) -timeout $(TEST_TIMEOUT) -run '^($(subst $(space),|,$(strip $(E2E_TESTS))))$$' $(E2E_PKGS)

# Source-level mutation testing of the reference kernel (internal/mutation):
# every mutant of every refkernel package judged by the suite, scores and
# survivors in reports/mutation.json and .md. CPU-heavy; the journal lets an
# interrupted campaign resume (MUTATION_FLAGS=-resume).
MUTATION_JOBS  ?= $(shell nproc 2>/dev/null | awk '{print 8*$$1}')
MUTATION_FLAGS ?=
.PHONY: mutation mutation-sample mutation-compare mutation-kernelkit
mutation:
	@mkdir -p $(REPORTS)/tmp
	$(GO) run ./cmd/mutate -j $(MUTATION_JOBS) -out $(REPORTS) -journal $(REPORTS)/tmp/mutation.jsonl \
		-commit "$$(git rev-parse --short HEAD 2>/dev/null)" $(MUTATION_FLAGS)

# The same campaign over kernelkit, the wire layer the reference kernel is
# served by (reports/mutation-kernelkit/): judged against the embedded
# kernel, then what survives against examples/kitloop, a loop built on the
# kit's helpers, by the scenarios it passes unmutated (issue 29;
# internal/mutation/kitkernel.go). -kit-kernels=false judges by the
# embedded kernel alone.
mutation-kernelkit:
	@mkdir -p $(REPORTS)/tmp $(REPORTS)/mutation-kernelkit
	$(GO) run ./cmd/mutate -tree kernelkit -j $(MUTATION_JOBS) -out $(REPORTS)/mutation-kernelkit \
		-survivors internal/mutation/survivors-kernelkit.json -journal $(REPORTS)/tmp/mutation-kernelkit.jsonl -commit "$$(git rev-parse --short HEAD 2>/dev/null)" $(MUTATION_FLAGS)

# The same campaign over the reference plugins (refplugin, issue 30;
# reports/mutation-plugins/): each mutant built into its plugin's main and
# judged by conform plugin as make plugin and plugin-ctxmem run it, seeds
# fixed (internal/mutation/plugin.go). Not part of make test.
.PHONY: mutation-plugins
mutation-plugins:
	@mkdir -p $(REPORTS)/tmp $(REPORTS)/mutation-plugins
	$(GO) run ./cmd/mutate -tree refplugin -j $(MUTATION_JOBS) -out $(REPORTS)/mutation-plugins \
		-survivors internal/mutation/survivors-plugins.json -journal $(REPORTS)/tmp/mutation-plugins.jsonl \
		-commit "$$(git rev-parse --short HEAD 2>/dev/null)" $(MUTATION_FLAGS)

# The campaigns of the Python and Node kits (internal/kitmutation, issue
# 29; reports/mutation-pythonkit/, reports/mutation-nodekit/): every mutant
# of a kit judged by its self-test's transcript and by conform run against
# the toy and the fuller kernel on the kit, by baseline difference. The
# Python kit's mutants come from internal/kitmutation/pymutate.py, the Node
# kit's from Stryker (npm ci in examples/node-kit/mutation). Not part of
# make test; skipped, saying why, without python3 or node and npm. A whole
# campaign takes hours on 2 cores: mutants are judged in a seeded random
# order and journaled, so one stopped early is reported as a random sample
# with KITMUTATE_FLAGS=-from-journal (internal/kitmutation/doc.go).
KITMUTATE_FLAGS ?=
.PHONY: mutation-pythonkit mutation-nodekit
mutation-pythonkit:
	@if ! command -v python3 >/dev/null 2>&1; then echo "mutation-pythonkit: skipped: python3 is not installed"; exit 0; fi; \
	mkdir -p $(REPORTS)/tmp && $(GO) run ./cmd/kitmutate -kit python -journal $(REPORTS)/tmp/mutation-pythonkit.jsonl \
		-commit "$$(git rev-parse --short HEAD 2>/dev/null)" $(KITMUTATE_FLAGS)
mutation-nodekit:
	@if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then echo "mutation-nodekit: skipped: node or npm is not installed"; exit 0; fi; \
	(cd examples/node-kit/mutation && npm ci --no-audit --no-fund --silent) && \
	mkdir -p $(REPORTS)/tmp && $(GO) run ./cmd/kitmutate -kit node -journal $(REPORTS)/tmp/mutation-nodekit.jsonl \
		-commit "$$(git rev-parse --short HEAD 2>/dev/null)" $(KITMUTATE_FLAGS)

# A seeded sample of the campaign (one mutant per package), part of make
# test; fails on a survivor that internal/mutation/survivors.json does not
# classify and on a lost kill (a sampled mutant the committed campaign
# killed that survives now).
mutation-sample:
	$(GO) test -vet=off -count=1 -timeout $(TEST_TIMEOUT) -run TestSampleCampaign ./internal/mutation/ -args -mutation-sample=1

# The same seeded sample judged as campaigns did before mutant schemata and
# per-scenario reach (one build per mutant; package scenarios, then the
# whole suite) and as they do now; fails on any verdict that differs.
MUTATION_COMPARE ?= 2
mutation-compare:
	$(GO) test -count=1 -timeout 3h -run TestCampaignCompare ./internal/mutation/ -args -mutation-compare=$(MUTATION_COMPARE) -test.v

# make test is what a contributor waits for on every change: vet, unit
# tests, end-to-end runs, the suite against the reference kernel, the
# reference plugins, the committed reports (issue 25: at most five minutes
# on an idle 2-core machine). make test-mutants tests the suite itself by
# mutation (the kill matrices and a campaign sample); it is slower, and CI
# runs it right after make test (.ci/run), so no check leaves CI.
#
# make test runs its steps TEST_JOBS at a time, each step's output kept
# together, longest first. Three, because one of the first three, the
# suite, mostly waits on its minute-long @slow scenario: the other two
# (unit and e2e) are what loads the cores. Three CPU-heavy steps at once
# starved race-tested unit tests on 2 cores before (a bridge flood test hit
# its time limit, a conformtest child missed its 5 s margin).
TEST_JOBS ?= 3
.PHONY: test-steps test-mutants test-mutants-steps
# -trimpath: make test's builds name files by module path, not by the
# clone's folder, so the build cache serves a fresh clone at any path (a
# clone's first make test compiled every package again, with and without
# -race: 6 min 56 s against 4 min 40 s; issue 25).
test: export GOFLAGS := -trimpath $(GOFLAGS)
test:
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) --output-sync=target test-steps
test-steps: unit e2e suite plugin vet python-test report-check

# The three runs mostly wait (grace windows, retry waits, plugin calls), so
# they run at once.
TEST_MUTANTS_JOBS ?= 3
test-mutants:
	@$(MAKE) --no-print-directory -j$(TEST_MUTANTS_JOBS) --output-sync=target test-mutants-steps
test-mutants-steps: plugin-mutants mutation-sample mutants

# Every committed report must come from the current suite (its catalog and
# feature files): conform report check names each stale one.
.PHONY: report-check screenshots
report-check: build
	$(BIN) report check $(REPORTS)/reference.json $(REPORTS)/reference.md $(REPORTS)/reference.html \
		$(REPORTS)/reference.junit.xml $(REPORTS)/reference.badge.svg $(REPORTS)/naive-kernel-python.* \
		$(wildcard $(REPORTS)/frameworks/*.json $(REPORTS)/frameworks/*.report.md $(REPORTS)/frameworks/*.html)

# The committed HTML reports in headless Chromium at 1400 and 420 px
# (reports/screenshots/), failing on console messages or a passing row
# before the first failing one; skipped where no Chromium is installed.
screenshots:
	./scripts/screenshots.sh

# Stability under load: the full suite 20 times as a subprocess at -j 12
# with two busy processes on the cores (scripts/verify.sh); any outcome that
# varies fails. Not part of make test: it takes minutes.
.PHONY: verify
verify: build
	BIN=$(BIN) OUT=$(REPORTS)/tmp ./scripts/verify.sh

# No error from a busy machine: a kernel that starts seconds late (CPU work,
# then a sleep; examples/slow-start) under default flags with both cores
# busy, FULL whole-suite runs and RUNS runs of a selection; any failure or
# error fails (scripts/verify-slow-start.sh). Takes minutes.
.PHONY: verify-slow-start
verify-slow-start: build
	BIN=$(BIN) OUT=$(REPORTS)/tmp/slow-start SLOW_START=5 SLOW_START_WORK=2000000 ./scripts/verify-slow-start.sh


# The speed figures the README states, each as a ratio against its baseline
# (scripts/bench): suite vs its longest scenario, validated vs unvalidated
# wire, fuzz sessions/s in-process and over the wire, campaign time per
# mutant. bench-micro: the Go micro-benchmarks of the kernel and driver.
.PHONY: bench-micro
bench: build
	$(GO) run ./scripts/bench -bin $(BIN) -out $(REPORTS)/tmp/bench
bench-micro:
	$(GO) test -run '^$$' -bench . ./refkernel/loop/ ./refkernel/hooks/ ./refkernel/subagent/ ./harness/driver/

clean:
	rm -rf bin $(REPORTS)/tmp

# Real coding agents through the bridge (conform agent): installs each
# profile's pinned npm package into .agents/ (ignored) and runs the suite
# against it inside a network namespace; skips an agent with the reason
# where node, npm, the package or a namespace is missing.
.PHONY: agents agents-check
agents: build
	CONFORM=$(BIN) scripts/agents.sh
	$(GO) test -count=1 ./reports/agents -update

# Which agent reports the current suite did not make (each names its suite
# digest; a stale one must be run again, and judged again). Not part of
# make test: a rerun of the real agents takes an hour, not a CI step.
agents-check: build
	$(BIN) report check $(wildcard $(foreach a,claude-code codex gemini-cli opencode qwen-code pi,$(REPORTS)/agents/$(a).json $(REPORTS)/agents/$(a).md $(REPORTS)/agents/$(a).html))

# The plugin profile (conform plugin). "make plugin" checks the reference
# plugin (refplugin) through the real go-plugin launch, every PL
# requirement at every level; "make plugin-mutants" runs the plugin kill
# matrix and writes reports/plugin-kill-matrix.md. Both do the same for the
# reference model provider (refplugin/model; MP rows, --category model
# detected from what it serves) and reports/model-kill-matrix.md.
REFPLUGIN := bin/refplugin
REFMODEL := bin/refmodel
.PHONY: plugin plugin-ctxmem plugin-mutants proto
plugin: build
	$(GO) build -o $(REFPLUGIN) ./refplugin/cmd/refplugin
	@mkdir -p $(REPORTS)/tmp
	@rm -rf $(REPORTS)/tmp/plugin-scratch
	$(BIN) plugin --plugin $(REFPLUGIN) --allow-effects $(REPORTS)/tmp/plugin-scratch \
		--process-backed exec --require all -q --report-json $(REPORTS)/tmp/refplugin.json
	$(GO) build -o $(REFMODEL) ./refplugin/model/cmd/refmodel
	$(BIN) plugin --plugin $(REFMODEL) --require all -q --report-json $(REPORTS)/tmp/refmodel.json
	$(MAKE) --no-print-directory plugin-ctxmem

# The reference context and memory providers and their legal variants
# (a compactor, a ratifying store). The plain context provider declares no
# compactor, so its MAY row CP-23 is skipped: it is gated at SHOULD.
plugin-ctxmem: build
	$(GO) build -o bin/refcontext ./refplugin/cmd/refcontext
	$(GO) build -o bin/refmemory ./refplugin/cmd/refmemory
	@mkdir -p $(REPORTS)/tmp
	$(BIN) plugin --category context --plugin bin/refcontext --require should -q --report-json $(REPORTS)/tmp/refcontext.json
	$(BIN) plugin --category context --plugin "bin/refcontext -compactor" --require all -q --report-json $(REPORTS)/tmp/refcontext-compactor.json
	$(BIN) plugin --category memory --plugin bin/refmemory --require all -q --report-json $(REPORTS)/tmp/refmemory.json
	$(BIN) plugin --category memory --plugin "bin/refmemory -ratify" --require all -q --report-json $(REPORTS)/tmp/refmemory-ratify.json

plugin-mutants:
	@mkdir -p $(KILL_OUT)
	$(GO) test -vet=off -count=1 -timeout $(TEST_TIMEOUT) \
		-run 'TestReferenceIsClean|TestReferenceAndVariantsAreClean|TestVariantsPass|TestKillMatrix' \
		./refplugin/mutants/ ./refplugin/model/mutants/ ./refplugin/refcontext/mutants/ ./refplugin/refmemory/mutants/ \
		-args -write-kill-matrix=$(CURDIR)/$(KILL_OUT)
	$(call same-as-committed,plugin-kill-matrix.md model-kill-matrix.md context-kill-matrix.md memory-kill-matrix.md)

# The plugin profile's wire definitions (api/*.proto) and the Go code
# generated from them (api/gen, committed). "make proto" installs the pinned
# toolchain from the Go module proxy into bin/tools (once per version),
# lints, regenerates, and fails if the committed code differs.
BUF_VERSION                ?= v1.75.0
PROTOC_GEN_GO_VERSION      ?= v1.36.11
PROTOC_GEN_GO_GRPC_VERSION ?= v1.6.1
TOOLS := $(CURDIR)/bin/tools
$(TOOLS)/.buf-$(BUF_VERSION):
	GOBIN=$(TOOLS) $(GO) install github.com/bufbuild/buf/cmd/buf@$(BUF_VERSION)
	@touch $@
$(TOOLS)/.protoc-gen-go-$(PROTOC_GEN_GO_VERSION):
	GOBIN=$(TOOLS) $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
	@touch $@
$(TOOLS)/.protoc-gen-go-grpc-$(PROTOC_GEN_GO_GRPC_VERSION):
	GOBIN=$(TOOLS) $(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@$(PROTOC_GEN_GO_GRPC_VERSION)
	@touch $@
proto: $(TOOLS)/.buf-$(BUF_VERSION) $(TOOLS)/.protoc-gen-go-$(PROTOC_GEN_GO_VERSION) $(TOOLS)/.protoc-gen-go-grpc-$(PROTOC_GEN_GO_GRPC_VERSION)
	cd api && PATH=$(TOOLS):$$PATH buf lint && PATH=$(TOOLS):$$PATH buf generate
	@test -z "$$(git status --porcelain -- api/gen)" || { git status --short -- api/gen; \
		echo "api/gen differs from what api/*.proto generate: commit the regenerated code"; exit 1; }
