# Entry points a person types. `make`: install what is missing, build, lint the bundled
# examples. `make test`: build and run every test through CTest. `make asan`: the same
# tests under AddressSanitizer and UndefinedBehaviorSanitizer.
JOBS ?= $(shell nproc)
BUILD ?= build
CMAKE_FLAGS ?=

.PHONY: all setup configure build examples test asan bench clean

all: examples

setup:
	@scripts/setup.sh

configure: setup
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

examples: build
	@echo "== torchlint on examples/ (findings are expected: the examples hold real mistakes)"
	@$(BUILD)/torchlint check examples/ || [ $$? -eq 1 ]

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

asan:
	@$(MAKE) --no-print-directory test BUILD=build-asan CMAKE_FLAGS="-DTORCHLINT_SANITIZE=ON"

bench: build
	@bench/run.sh $(BUILD)

clean:
	rm -rf build build-asan
