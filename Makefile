# lab — see README.md. Every target works on a fresh Debian 12 machine as root.
GO      ?= $(shell command -v go || echo /usr/local/go/bin/go)
BIN     := bin/lab
FUZZTIME ?= 4s
# FUZZ: every fuzz target, as package:Target (go test -fuzz takes one
# target of one package at a time). `make test` runs each for FUZZTIME.
FUZZ := ./internal/spec:FuzzLoad ./bench:FuzzParseCPU ./bench/iperf3:FuzzParse ./bench/iperf2:FuzzParse \
	./bench/netperf:FuzzParse ./bench/sockperf:FuzzParse ./guest/linux:FuzzObserve ./guest/linux:FuzzCheckRuleset \
	./guest/freebsd:FuzzParseIfconfig ./internal/lockfile:FuzzParse ./internal/state:FuzzDecode

.PHONY: demo deps build test unit e2e fuzz bench vet clean reproduce sensitivity duet duet-design docs

## demo: install prerequisites, build lab, run the quickstart lab for real
demo: deps build
	./$(BIN) -chdir=examples/quickstart apply -auto-approve

deps:
	./scripts/install-deps.sh

build:
	$(GO) build -o $(BIN) ./cmd/lab

# Every package but the CLI's end-to-end suites runs under the race
# detector — except providers/vsphere: govmomi's in-process vCenter
# simulator races with itself when two destroy tasks run at once
# (simulator/registry.go RemoveReference against datastore.go resolve, no
# frame of lab's in either stack), so that package runs without -race.
UNIT   = $(shell $(GO) list ./... | grep -v -e '/cmd/lab$$' -e '/providers/vsphere$$')
NORACE = ./providers/vsphere
# SIMS: the packages with seeded simulations of a verdict's error rates
# (TestSimulated*): pure arithmetic over thousands of trials, 5-10x slower
# under -race (internal/results passed its 20-minute timeout so at load 30).
# The unit step runs everything else of theirs under -race; the simulations
# run in a step of their own without it. Found by name, so a new one cannot
# be left out of both: name every seeded simulation TestSimulated… (eight
# in internal/results took 577 s under -race at load 15-23, 26.5 s without).
SIMS   = $(shell grep -rl --include='*_test.go' '^func TestSimulated' . | xargs -n1 dirname | sort -u)

## test: every test — unit (with -race; the seeded simulations without it), golden, real namespaces, libvirt and
## the vCenter simulator end to end, then each fuzz target for FUZZTIME
## (11 targets × 4 s). Packages run one at a time (-p 1): several of them
## measure real traffic, and two such tests sharing this machine's two cores
## would disturb each other. Each step runs through scripts/gotest.sh
## (go test -json into scripts/slowest): each package's result and time, the
## whole output of a failed test, and at the end the 20 slowest tests and
## subtests with their seconds — where CI's time goes (docs/development.md).
test: deps vet
	bash scripts/gotest.sh $(GO) -p 1 -count=1 -race -timeout 20m -skip '^TestSimulated' $(UNIT)
	bash scripts/gotest.sh $(GO) -p 1 -count=1 -timeout 20m $(NORACE)
	bash scripts/gotest.sh $(GO) -p 1 -count=1 -timeout 20m -run '^TestSimulated' $(SIMS)
	bash scripts/gotest.sh $(GO) -p 1 -count=1 -timeout 70m ./cmd/lab
	$(MAKE) fuzz

## docs: regenerate docs/cli.md from lab's verb table and flag sets
## (cmd/lab/clidocs_test.go) and docs/spec-schema.md from the spec loader's
## block schemas (internal/spec/schemadoc_test.go); TestCLIReference and
## TestSchemaReference fail when the checked-in pages are stale
docs:
	$(GO) test ./cmd/lab -run '^TestCLIReference$$' -count=1 -update
	$(GO) test ./internal/spec -run '^TestSchemaReference$$' -count=1 -update

## fuzz: each fuzz target for FUZZTIME (make fuzz FUZZTIME=5m for a longer hunt)
## (scripts/fuzz.sh: a failure that wrote no input, Go's own deadline race, runs once more)
fuzz:
	@bash scripts/fuzz.sh "$(GO)" "$(FUZZTIME)" $(FUZZ)

## vet: go vet, gofmt, staticcheck and errcheck (pinned in go.mod's tool
## block; errcheck's deliberate exclusions are in .errcheck-excludes), and
## go.mod as `go mod tidy` would write it (a direct import marked indirect
## once hid which modules lab really uses).
vet:
	$(GO) mod tidy -diff
	$(GO) vet ./...
	$(GO) tool staticcheck ./...
	$(GO) tool errcheck -ignoretests -exclude .errcheck-excludes ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { gofmt -l .; echo "gofmt: files above need formatting"; exit 1; }

## reproduce: reproduce each pinned bundle (testdata/bundles/*) here for real,
## judged with the margin each bundle states (docs/ci-recipe.md says why).
## Every bundle is tried; the exit status is the worst: 2 when one is not
## reproduced, 1 when one could not be run. REPRODUCE_FLAGS=-strict fails on
## inconclusive too. Each bundle runs in a new temporary directory (kept).
## A bundle of the libvirt back end runs in the private libvirtd of
## test/kvm/harness.sh, in that harness's pool and with its key
## (test/kvm/with-harness.sh starts and stops it).
REPRODUCE_FLAGS ?=
reproduce: deps build
	@rc=0; for b in testdata/bundles/*/; do \
		if grep -q '"libvirt"' "$$b/bundle.json"; then \
			echo "lab reproduce $(REPRODUCE_FLAGS) $$b (in test/kvm/harness.sh's libvirtd)"; \
			test/kvm/with-harness.sh ./$(BIN) reproduce -auto-approve $(REPRODUCE_FLAGS) \
				-var pool=@LAB_KVM_POOL@ -var ssh_key=@LAB_KVM_KEY@ "$$b"; s=$$?; \
		else \
			echo "lab reproduce $(REPRODUCE_FLAGS) $$b"; \
			./$(BIN) reproduce -auto-approve $(REPRODUCE_FLAGS) "$$b"; s=$$?; \
		fi; \
		[ $$s -le $$rc ] || rc=$$s; \
	done; exit $$rc

## bench: speed and fidelity figures, printed as ratios against the targets
## (all but the sensitivity and duet benchmarks, which have targets of their own)
bench: deps build
	$(GO) test -p 1 -count=1 -run '^$$' -bench . -skip "Sensitivity|Duet" -benchtime 1x -timeout 30m ./bench/... ./internal/plan/... ./internal/spec/... ./internal/results/... ./internal/verdicts/... ./providers/vsphere/... ./cmd/lab/...

## sensitivity: what lab reproduce's shape verdicts can tell on this machine
## (cmd/lab BenchmarkSensitivity, 25-40 minutes with the machine's load, root): real A/A applies of
## a two-cell lab, with and without CPU hogs, judged against bundles of one
## another as they are and with one cell scaled by 0.9 … 2.0; prints the
## not-reproduced rates and issue 32's goals as MET or NOT met
## (docs/ci-recipe.md). LAB_SENS_KEEP=DIR keeps the runs to judge them again.
sensitivity: deps
	$(GO) test -p 1 -count=1 -run '^$$' -bench Sensitivity -benchtime 1x -timeout 40m ./cmd/lab

## duet: does a duet (two pairs, the two cells' flows at once) decide a shape
## better than the foldover at equal benchmark time? (cmd/lab BenchmarkDuet,
## 25-40 minutes with the machine's load and other labs' lock waits, root): interleaved real applies of
## both and of an A/A duet; prints SDs, SE per apply, MDE in 10 minutes,
## the duet's bias and "duet vs foldover: X decides more" (docs/ci-recipe.md).
## LAB_DUET_ROUNDS (3) and LAB_DUET_BLOCKS (8) size it; LAB_DUET_KEEP=DIR keeps the applies.
duet: deps
	$(GO) test -p 1 -count=1 -run '^$$' -bench 'Duet$$' -benchtime 1x -timeout 60m ./cmd/lab

## duet-design: issue 32 §7's goals for design = "duet" (cmd/lab BenchmarkDuetDesign,
## root, about 15-25 minutes under load): real applies of examples/duet-mtu, each judged
## against the others as is and with mtu=9000 scaled by 0.9, 0.85, 0.67; MET / NOT met.
## LAB_DUETD_APPLIES (4) and LAB_DUETD_REPEAT (16) size it; LAB_DUETD_KEEP=DIR keeps the applies.
duet-design: deps
	$(GO) test -p 1 -count=1 -run '^$$' -bench 'DuetDesign$$' -benchtime 1x -timeout 60m ./cmd/lab

clean:
	rm -rf bin
