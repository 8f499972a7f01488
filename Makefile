# Thin wrapper: the real build is CMake (CMakePresets.json).
#   make run    install deps, release build, run the bundled conformance suite
#   make test   install deps, ASan+UBSan build, run every test with ctest
#   make bench  install deps, release build, run the benchmarks
#   make fuzz   build the libFuzzer targets (ASan+UBSan), run
#               each for FUZZ_SECONDS (default 60); FUZZ_SECONDS=10 is the CI smoke
JOBS ?= $(shell nproc)

.PHONY: deps deps-run run test bench fuzz build-release build-asan clean

deps:
	scripts/install-deps

deps-run:
	scripts/install-deps --run

build-release: deps-run
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS)

build-asan: deps
	cmake --preset asan >/dev/null
	cmake --build --preset asan -j $(JOBS)

run: build-release
	build/release/harness/llmconform run --specs specs --out out/reports

test: build-asan
	ctest --preset asan -j $(JOBS)

bench: deps
	cmake --preset bench >/dev/null
	cmake --build --preset bench -j $(JOBS)
	bench/run-all build/bench

FUZZ_SECONDS ?= 60

fuzz:
	scripts/install-deps --no-npm
	cmake --preset fuzz >/dev/null
	cmake --build --preset fuzz -j $(JOBS) --target fuzzers
	fuzz/run-all build/fuzz $(FUZZ_SECONDS)

clean:
	rm -rf build out
