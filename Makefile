# Front door: `make run` builds the `latchwork` command alone and runs the demo
# on the simulator, `make test` builds everything and runs every test in a
# normal and in an AddressSanitizer+UBSan build, then fuzzes, `make test-verbs`
# runs the verbs backend against Soft-RoCE in a VM, `make fuzz` fuzzes the
# config and flag parsers for FUZZ_SECONDS per target (TEST_FUZZ_SECONDS in
# `make test`).
BUILD      ?= build
ASAN_BUILD ?= build-asan
RELEASE_BUILD ?= build-release
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 45
TEST_FUZZ_SECONDS ?= 20
CMAKE_GEN  := -G Ninja

.PHONY: all bootstrap bootstrap-build build build-cli build-release run test test-fast test-asan test-verbs fuzz test-fuzz bench clean

all: build

# Packages: `build` for the library and the command, `all` for tests too.
bootstrap:
	@bash scripts/bootstrap.sh all

bootstrap-build:
	@bash scripts/bootstrap.sh build

$(BUILD)/build.ninja: | bootstrap-build
	cmake -S . -B $(BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: bootstrap $(BUILD)/build.ninja
	cmake --build $(BUILD)

# The command and the libraries it links, no tests or benchmarks.
build-cli: bootstrap-build $(BUILD)/build.ninja
	cmake --build $(BUILD) --target latchwork_cli

# -O3 raises warnings -O2 does not (GCC's -Wrestrict): CI builds it too.
$(RELEASE_BUILD)/build.ninja: | bootstrap
	cmake -S . -B $(RELEASE_BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Release

build-release: bootstrap $(RELEASE_BUILD)/build.ninja
	cmake --build $(RELEASE_BUILD)

run: build-cli
	./$(BUILD)/latchwork demo

test-fast: build
	ctest --test-dir $(BUILD) --output-on-failure -j2

# -Og, not -O0: the same compile time, and the tests run about 5x faster under
# ASan (two check_bug_tests 145 s -> 28 s; docs/build.md).
$(ASAN_BUILD)/build.ninja: | bootstrap
	cmake -S . -B $(ASAN_BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-Og -g1" \
	  -DLW_SANITIZE=ON -DLW_BUILD_BENCH=OFF

# One test runs only in the normal build: the Sherman negative-control sweep
# (about 180 seeds, 60 s under ASan) repeats code paths the pinned-seed tests
# of the same schemes run under ASan.
ASAN_SKIP = ShermanCheck.NegativeControlsAreFoundBySweep
test-asan: bootstrap $(ASAN_BUILD)/build.ninja
	cmake --build $(ASAN_BUILD)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(ASAN_BUILD) --output-on-failure -j2 -E '^($(ASAN_SKIP))$$'

# libFuzzer (clang) with ASan+UBSan: builds only latchwork_core and the four
# targets of fuzz/, then runs each from its seed corpus (fuzz/run.sh).
$(FUZZ_BUILD)/build.ninja: | bootstrap
	cmake -S . -B $(FUZZ_BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_COMPILER=clang++ -DLW_FUZZ=ON -DLW_BUILD_TESTS=OFF -DLW_BUILD_BENCH=OFF

fuzz: bootstrap $(FUZZ_BUILD)/build.ninja
	cmake --build $(FUZZ_BUILD) --target fuzz_all
	bash fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

test-fuzz:
	$(MAKE) fuzz FUZZ_SECONDS=$(TEST_FUZZ_SECONDS)

test: test-fast test-asan test-fuzz

# The verbs backend on real verbs: Soft-RoCE (rdma_rxe) inside a qemu VM
# (scripts/softroce-vm.sh installs qemu and rdma-core and fetches a Debian
# kernel on first use). Fails, saying why, if the VM cannot start.
test-verbs: build
	bash scripts/softroce-vm.sh run --timeout 1500 -- "bash tests/verbs/verbs_suite.sh $(BUILD)"

# One table on stdout (best-of-N wall clock; other load skews it), the same
# numbers as JSON in $(BUILD)/bench-results.json. A few minutes on 2 cores.
bench: build
	./$(BUILD)/bench/latchwork_bench --json $(BUILD)/bench-results.json

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) $(RELEASE_BUILD)
