# Entry points a person types. `make`: install what building needs, build, lint the bundled
# examples. `make test`: install what the tests need too, build and run every test through
# CTest. `make asan`: the same tests under AddressSanitizer and UndefinedBehaviorSanitizer.
# `make package`: the Debian package and the VS Code extension (linux-x64) in $(BUILD)/.
JOBS ?= $(shell nproc)
BUILD ?= build
CMAKE_FLAGS ?=
# What scripts/setup.sh installs: each target below that needs more than building says so.
SETUP_PROFILE = build

.PHONY: all setup configure build examples test asan bench package clean

all: examples

setup:
	@scripts/setup.sh $(SETUP_PROFILE)

configure: setup
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

examples: build
	@echo "== torchlint on examples/ (findings are expected: the examples hold real mistakes)"
	@$(BUILD)/torchlint check examples/ || [ $$? -eq 1 ]

test: SETUP_PROFILE = test
test: build
	@cd $(BUILD) && ctest --output-on-failure --no-tests=error -j $(JOBS)

asan:
	@$(MAKE) --no-print-directory test BUILD=build-asan CMAKE_FLAGS="-DTORCHLINT_SANITIZE=ON"

bench: build
	@bench/run.sh $(BUILD)

# torchlint_<version>_amd64.deb (CPack, cmake/Package.cmake), then the .vsix carrying the
# packaged binary, then their check (lintian, the unpacked binary on examples/).
package: SETUP_PROFILE = package
package: configure
	@cmake --build $(BUILD) -j $(JOBS) --target torchlint torchlint_man
	@cd $(BUILD) && cpack -G DEB
	@packaging/vsix.sh $(BUILD)
	@tests/package/check.sh $(BUILD)

clean:
	rm -rf build build-asan build-fuzz build-pkg

# `make fuzz`: the libFuzzer targets of tests/fuzz (clang, AddressSanitizer and UBSan), built in
# build-fuzz, each run for FUZZ_SECONDS; a crash or broken invariant fails (tests/fuzz/README.md).
FUZZ_SECONDS ?= 60
.PHONY: fuzz
fuzz:
	@scripts/setup.sh fuzz
	@CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTORCHLINT_FUZZ=ON -DTORCHLINT_TESTS=OFF >/dev/null
	@cmake --build build-fuzz -j $(JOBS) --target fuzzers
	@tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS)
