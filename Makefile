# Build and test radoscp.
#
#   make deps          install what is missing: Ceph 16.2 daemons and headers, g++
#   make build         build bin/radoscp
#   make build-bench   build bin/radoscp-bench, the benchmark laboratory (a
#                      tool of this repository, not part of radoscp)
#   make test          start a throwaway Ceph cluster, run every test against
#                      it (a missing cluster is a failure, not a skip), stop it
#   make check         every test CI runs: make test, make deb-test, make
#                      test-reef (.ci/run calls it)
#   make test-reef     the data-path tests again against a Ceph 18.2 (Reef)
#                      cluster run from a Debian 13 root (test/reef.sh):
#                      with this host's clients, and built against Reef's
#                      libraries
#   make build-reef    build bin/radoscp-reef against Reef's libraries, in
#                      that root (test/inroot.sh runs it there)
#   make demo-reef     the demo copy with it, against a Reef cluster
#   make deb           build the Debian package dist/radoscp_VERSION_ARCH.deb
#   make deb-test      build it, install it here, run the installed radoscp
#                      (--version, the demo copy), remove it
#   make cluster-up    start a cluster for interactive use and say how to use it
#   make cluster-down  stop it
#   make bench         start a throwaway cluster, run every benchmark scenario
#                      (radoscp-bench run, pinning on as in radoscp cp) and
#                      the engine micro-benchmarks, regenerate
#                      docs/bench-results.md, docs/bench-speedup.svg and the
#                      results section of docs/benchmarks.md (radoscp-bench report), stop
#                      the cluster
#   make bench-report  the same report from the results already in docs/bench/
#   make crash         many kill -9 crash trials on a throwaway cluster
#                      (TRIALS=200; RADOSCP_CRASH_SEED replays one run)
#   make soak          a long soak: random copies with random faults
#                      (ITERATIONS=5000 on the fake, REAL_ITERATIONS=100)
#   make fuzz          run every fuzzer for FUZZTIME each (default 30s)
#
# Go builds need cgo and go-ceph's tag for the Ceph release whose headers
# are installed (pacific, quincy, reef, squid, tentacle): build/ceph-tag.sh
# reads it from the librados-dev package, so a plain make build works on
# any of them; CEPH_TAG=reef (say) overrides it.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c

GO ?= go
# Both are expanded when a recipe runs (after deps has installed the
# headers), and the release is read once.
CEPH_TAG ?= $(eval CEPH_TAG := $(shell build/ceph-tag.sh || echo '?'))$(CEPH_TAG)
TAGS = $(if $(filter ?,$(CEPH_TAG)),$(error no Ceph release to build for (build/ceph-tag.sh above); set CEPH_TAG),-tags '$(CEPH_TAG)')
export CGO_ENABLED := 1

# -p 1: packages are tested one at a time. They all share one cluster, and
# some tests change cluster-wide settings (test.InjectCopyFromError makes
# every copy-from on every OSD fail) that would break another package's
# tests running at the same moment. -timeout guards against a hang only:
# the end-to-end package alone takes over half an hour on 2 cores (every
# copy path runs fast and slow, with kills, MDS and OSD faults).
TESTFLAGS ?= -race -count=1 -timeout 80m -p 1

# The directory of the cluster that cluster-up started (gitignored).
CLUSTER_DIR_FILE := .cluster-dir

.PHONY: deps build build-bench build-reef check test test-reef demo demo-run demo-reef deb deb-test bench bench-report cluster-up cluster-down crash soak fuzz man

deps:
	test/deps.sh

# man writes the man pages generated from the commands into man/.
man: build
	bin/radoscp man man

# The version --version reports: the nearest tag, or the commit, and
# -dirty with uncommitted changes.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo unknown)

build:
	$(GO) build $(TAGS) -ldflags "-X main.version=$(VERSION)" -o bin/radoscp ./cmd/radoscp

build-bench:
	$(GO) build $(TAGS) -o bin/radoscp-bench ./cmd/radoscp-bench

# The trap stops the cluster however the tests end (failure, ^C); the
# recipe's exit status is go test's (or 1 if the cluster would not stop).
# "go build" first compiles every package in parallel, which -p 1 would not;
# it is not fatal, as go test reports build failures per package and still
# runs the others.
# check is every test, one lane after another: the suite on this host's
# Ceph, the Debian package installed and run, the Reef lane.
check:
	$(MAKE) test
	$(MAKE) deb-test
	$(MAKE) test-reef

test: deps
	$(GO) build $(TAGS) -race ./... || true
	dir=$$(mktemp -d)
	trap 'test/cluster.sh stop "$$dir"' EXIT
	trap 'exit 130' INT TERM
	test/cluster.sh start --fs "$$dir" >/dev/null
	. "$$dir/env"
	RADOSCP_REQUIRE_CLUSTER=1 $(GO) test $(TAGS) $(TESTFLAGS) ./...

TRIALS ?= 200
ITERATIONS ?= 5000
REAL_ITERATIONS ?= 100
FUZZTIME ?= 30s

# with_cluster runs its argument (a go test command line) against a
# throwaway cluster, as test does.
define with_cluster
	dir=$$(mktemp -d)
	trap 'test/cluster.sh stop "$$dir"' EXIT
	trap 'exit 130' INT TERM
	test/cluster.sh start "$$dir" >/dev/null
	. "$$dir/env"
	RADOSCP_REQUIRE_CLUSTER=1 $(1)
endef

# The Reef lane: a Debian 13 root with Ceph 18.2 (Reef) daemons, tools
# and headers (test/reef.sh; kept in REEF_ROOT between runs on one
# machine, made on a fresh one) runs a throwaway cluster, and the tests run
# against it twice:
# - with this host's Pacific-built clients (radoscp, the tests, ceph-fuse,
#   the rados CLI): mixed releases, as during an upgrade. What runs there
#   is every data-path promise: the conformance suites that hold the fakes
#   to the cluster (rados, truncate), the cephfs and verify packages, and
#   the end-to-end copies of each kind with their faults (REEF_E2E: the
#   tree copy, its kill and resume, its MDS restart and failover cover
#   what fscopy's own cluster tests do, which run on Pacific only, to keep
#   .ci/run, which runs this lane, well inside 90 minutes);
# - inside the root (test/inroot.sh), the end-to-end tests and the radoscp
#   they run built with -tags reef against Reef's librados and libcephfs,
#   with Reef's ceph-fuse and rados CLI checking the copies: every kind of
#   copy once, a kill and resume, and the API --version names
#   (REEF_BUILT_E2E; bin/radoscp-reef's --version, too). The
#   daemons' faults ran in the first pass; what the second adds is the
#   client library.
# Usage, message and bench tests run on Pacific only (README: Ceph
# releases).
REEF_ROOT ?= $(HOME)/.cache/radoscp/reef-root
REEF_E2E := TestE2EStriper|TestE2EErasureCodedStriperAndRaw|TestE2EErasureCodedMigrate|TestE2EConcurrentCopiesOneWins|TestE2EKilledCopyLockTakenOver|TestE2EPartial|TestE2ECephFSTree$$|TestE2ECephFSKillAndResume|TestE2EMigrate$$|TestE2ECephFSHardLinks|TestE2EPinnedSourceRewrittenMidCopy|TestE2ERefusedCopiesWriteNothing|TestE2ESlowStriper|TestE2ESlowCephFSFailureThenResume|TestE2ECephFSSnapshotCopies|TestE2EPoolSnapshot$$|TestE2ESubvolumeClone$$|TestE2EVerifyStriper|TestE2EVerifyCephFSTree|TestE2ELockObjectRemovedWithLeastCaps|TestE2EOSDRestart|TestE2EMDSFaults
REEF_BUILT_E2E := TestE2EStriper$$|TestE2EErasureCodedStriperAndRaw|TestE2ECephFSTree$$|TestE2ECephFSKillAndResume|TestE2EMigrate$$|TestE2ECephFSHardLinks|TestE2ECephFSSnapshotCopies|TestE2EPoolSnapshot$$|TestE2ESubvolumeClone$$|TestE2EVerifyStriper|TestE2EVerifyCephFSTree|TestE2ELockObjectRemovedWithLeastCaps|TestCephAPINamesTheTag

# reef_cluster starts a Reef cluster from REEF_ROOT (stopped however the
# recipe ends) and sets CEPH_CONF for it.
define reef_cluster
	test/reef.sh "$(REEF_ROOT)"
	dir=$$(mktemp -d)
	trap 'test/cluster.sh stop "$$dir"' EXIT
	trap 'exit 130' INT TERM
	RADOSCP_CEPH_ROOT="$(REEF_ROOT)" test/cluster.sh start $(1) "$$dir" >/dev/null
	. "$$dir/env"
	ceph versions --format json | grep -q '"overall":{"ceph version 18\.2'
endef

test-reef: deps
	$(call reef_cluster,--fs)
	RADOSCP_REQUIRE_CLUSTER=1 $(GO) test $(TAGS) -count=1 -timeout 40m -p 1 ./rados/ ./truncate/ ./cephfs/ ./verify/
	RADOSCP_REQUIRE_CLUSTER=1 $(GO) test $(TAGS) -count=1 -timeout 40m -run '$(REEF_E2E)' ./cmd/radoscp/
	RADOSCP_REQUIRE_CLUSTER=1 test/inroot.sh "$(REEF_ROOT)" $(GO) test -tags reef -count=1 -timeout 40m -run '$(REEF_BUILT_E2E)' ./cmd/radoscp/
	RADOSCP_REQUIRE_CLUSTER=1 test/inroot.sh "$(REEF_ROOT)" $(GO) test -tags reef -count=1 -timeout 10m -run 'TestSnapDiff' ./cephfs/
	$(build_reef)
	test/inroot.sh "$(REEF_ROOT)" bin/radoscp-reef --version | grep 'loaded; built with the Ceph 18.2 reef API)$$'

# build_reef (and build-reef) builds bin/radoscp-reef inside REEF_ROOT
# against Reef's libraries (it runs there: test/inroot.sh REEF_ROOT
# bin/radoscp-reef ...).
build_reef = test/inroot.sh "$(REEF_ROOT)" $(GO) build -tags reef -ldflags "-X main.version=$(VERSION)" -o bin/radoscp-reef ./cmd/radoscp
build-reef:
	test/reef.sh "$(REEF_ROOT)"
	$(build_reef)

crash: deps
	$(call with_cluster,RADOSCP_CRASH_TRIALS=$(TRIALS) $(GO) test $(TAGS) -count=1 -timeout 4h -v -run '^TestE2ECrash$$' ./cmd/radoscp)

soak: deps
	$(call with_cluster,RADOSCP_SOAK_ITERATIONS=$(ITERATIONS) RADOSCP_SOAK_REAL_ITERATIONS=$(REAL_ITERATIONS) $(GO) test $(TAGS) -count=1 -timeout 4h -v -run '^TestSoak' .)

# New interesting inputs land in the Go build cache; copy the ones worth
# keeping into the package's testdata/fuzz/FuzzX/ and commit them.
fuzz:
	for t in ./address:FuzzParseAddress ./config:FuzzParseBytes ./layout:FuzzParse ./layout:FuzzValidate \
		./layout:FuzzExtents ./layout:FuzzPlan ./window:FuzzRun; do
		$(GO) test $(TAGS) -run '^$$' -fuzz "^$${t#*:}$$" -fuzztime $(FUZZTIME) "$${t%%:*}"
	done

# A real copy on a throwaway cluster: a 66 MiB striped object written with
# `rados --striper put`, copied by radoscp (16 copy-froms in flight, the
# trailing partial object and object 0 through the client), read back with
# `rados --striper get` and compared byte for byte. demo-reef does the same
# with bin/radoscp-reef and Reef's rados CLI, inside REEF_ROOT, against a
# Reef cluster.
# demo_copy RUN,BINARY: the copy, with each Ceph program run by RUN.
define demo_copy
	work=$$(mktemp -d "$${TMPDIR:-/tmp}/radoscp-demo.XXXXXX")
	trap 'test/cluster.sh stop "$$dir"; rm -rf "$$work"' EXIT
	conf="$$dir/ceph.conf"
	head -c $$((66 << 20)) /dev/urandom >"$$work/in"
	$(1) rados -c "$$conf" -p radoscp-a --striper put demo "$$work/in"
	$(1) $(2) --version
	echo "+ radoscp cp -c $$conf --window 16 striper:radoscp-a/demo striper:radoscp-b/demo-copy"
	$(1) $(2) cp -c "$$conf" --window 16 --no-progress striper:radoscp-a/demo striper:radoscp-b/demo-copy
	$(1) $(2) cp -c "$$conf" --window 16 --json striper:radoscp-a/demo striper:radoscp-b/demo-copy2
	$(1) rados -c "$$conf" -p radoscp-b --striper get demo-copy "$$work/out"
	cmp "$$work/in" "$$work/out"
	echo "demo: rados --striper get of the copy is byte-for-byte identical to the source"
endef

demo: deps build demo-run

# demo-run is the demo with the radoscp in RADOSCP, built or not
# (deb-test runs the installed one).
RADOSCP ?= bin/radoscp
demo-run:
	dir=$$(mktemp -d)
	trap 'test/cluster.sh stop "$$dir"' EXIT
	trap 'exit 130' INT TERM
	test/cluster.sh start "$$dir" >/dev/null
	$(call demo_copy,,$(RADOSCP))

# The work directory is under the cluster's, which the root sees.
demo-reef: deps build-reef
	$(call reef_cluster,)
	export TMPDIR=$$dir
	$(call demo_copy,test/inroot.sh "$(REEF_ROOT)",bin/radoscp-reef)

# deb builds dist/radoscp_VERSION_ARCH.deb (packaging/deb.sh: the binary,
# man pages, shell completions, the nightly-clone script and units);
# deb-test installs it here, runs the installed radoscp's --version and the
# demo with it, and removes it again (CI runs it on its throwaway machine).
deb: build
	packaging/deb.sh bin dist

deb-test: deps build
	deb=$$(packaging/deb.sh bin dist)
	packaging/deb-test.sh "$$deb"

# Scenarios and repeats; the README's figures come from the defaults.
# The small-file scenarios (smallfiles: 5,000 files of 4-64 KiB; tree: a
# copy of /usr/include) take minutes a run: BENCH_TREE_REPEAT runs each.
BENCH_SCENARIOS ?= kernel latency10 latency20 latency2 latency1 latency05 latency1-4096 throughput cephfs smallfiles smallfiles-2ms tree
BENCH_REPEAT ?= 5
BENCH_TREE_REPEAT ?= 3

# Each memstore OSD reports 3 GiB: the throughput scenario holds 1 GiB of
# sources and 1 GiB of copies at once, unevenly spread over three OSDs.
# The cluster has CephFS (--fs) for the cephfs scenario, whose sources and
# copies go into /bench-cephfs, removed afterwards (--pool is unused there).
# radoscp's contenders pin source objects (--pin-source, radoscp cp's
# default), as users run it. The raw results (radoscp-bench run --json,
# go test -bench) go to a scratch directory and then to docs/bench/, from
# which bench-report regenerates the report without running anything again;
# a failed scenario leaves the committed results as they were.
BENCH_DIR := docs/bench
bench: deps build build-bench
	dir=$$(mktemp -d)
	work=$$(mktemp -d)
	trap 'test/cluster.sh stop "$$dir"; rm -rf "$$work"' EXIT
	trap 'exit 130' INT TERM
	RADOSCP_OSD_BYTES=$$((3 << 30)) test/cluster.sh start --fs "$$dir" >/dev/null
	conf="$$dir/ceph.conf"
	$(GO) test $(TAGS) -run '^$$' -bench Engine -benchmem . | tee "$$work/engine.txt"
	for s in $(BENCH_SCENARIOS); do
		repeat=$(BENCH_REPEAT)
		if [[ $$s == smallfiles* || $$s == tree ]]; then repeat=$(BENCH_TREE_REPEAT); fi
		# 4,096 objects leave out the rados CLI loop: a process start per
		# object, about 6 minutes a repeat here, measures the CLI's start
		# (latency1 has it on 256 objects).
		modes=()
		if [[ $$s == latency1-4096 ]]; then modes=(--modes offload,auto,all,client); fi
		# At 20 ms, radoscp cp itself too (bin/radoscp): what its
		# prechecks and copy lock add to the engine's process.
		if [[ $$s == latency20 ]]; then modes=(--modes offload,auto,all,rados-cp,client,command); fi
		echo "+ radoscp-bench run --scenario $$s --repeat $$repeat --pin-source $${modes[*]}"
		bin/radoscp-bench run -c "$$conf" --pool radoscp-a --prefix "bench-$$s" --scenario "$$s" --repeat $$repeat \
			--pin-source "$${modes[@]}" --json >"$$work/$$s.json"
	done
	rm -rf $(BENCH_DIR)
	mkdir -p $(BENCH_DIR)
	cp "$$work"/*.json "$$work/engine.txt" $(BENCH_DIR)/
	$(MAKE) --no-print-directory bench-report

# The report, plot and docs/benchmarks.md section from the results in docs/bench/.
bench-report: build-bench
	results=()
	for s in $(BENCH_SCENARIOS); do
		if [[ -f $(BENCH_DIR)/$$s.json ]]; then results+=("$(BENCH_DIR)/$$s.json"); fi
	done
	bin/radoscp-bench report --out docs/bench-results.md --plot docs/bench-speedup.svg \
		--engine $(BENCH_DIR)/engine.txt --splice docs/benchmarks.md "$${results[@]}"
	cat docs/bench-results.md

cluster-up: deps
	@if [[ -f $(CLUSTER_DIR_FILE) ]]; then
		echo "a cluster is already up in $$(cat $(CLUSTER_DIR_FILE)); make cluster-down first" >&2
		exit 1
	fi
	dir=$$(test/cluster.sh start --fs)
	echo "$$dir" >$(CLUSTER_DIR_FILE)
	echo "cluster up in $$dir; use it with: . $$dir/env"

cluster-down:
	@if [[ ! -f $(CLUSTER_DIR_FILE) ]]; then
		echo "no cluster is up (no $(CLUSTER_DIR_FILE))"
		exit 0
	fi
	dir=$$(cat $(CLUSTER_DIR_FILE))
	# A directory already gone (a reboot, say) leaves nothing to stop.
	if [[ -d $$dir ]]; then test/cluster.sh stop "$$dir"; fi
	rm -f $(CLUSTER_DIR_FILE)

# Each recipe is one shell script, so that cd, variables and traps carry
# from line to line.
.ONESHELL:
