# FreeDNN entry points. `make run` is the main job, `make test` runs all tests.
# Both install what they need first (scripts/setup.sh).
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all setup configure build run test bench clean coverage

all: build

setup:
	@bash scripts/setup.sh

configure: setup
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# Main job: the bench driver on its default problem set, on the default
# device (the CPU here; the GPU where there is one).
run: build
	@$(BUILD)/bench/freednn-bench --default-set

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 900

coverage: build
	@python3 scripts/gen_coverage.py

clean:
	rm -rf $(BUILD)
