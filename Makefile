# FreeDNN entry points. `make run` is the main job (the digits training demo),
# `make test` runs all tests, `make bench` runs the bench driver.
# All install what they need first (scripts/setup.sh).
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all setup configure build run demo test bench clean coverage

all: build

setup:
	@bash scripts/setup.sh

configure: setup
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# Main job: the demo. Trains a small CNN on scikit-learn's handwritten digits
# through the cuDNN API (examples/train_digits.cpp) on the default device (the
# GPU where there is one, else the CPU); fails below 90% test accuracy.
run: demo

demo: configure
	@cmake --build $(BUILD) -j $(JOBS) --target train_digits
	@python3 examples/digits_data.py --out $(BUILD)/examples/digits.bin
	@$(BUILD)/examples/train_digits --data $(BUILD)/examples/digits.bin

# The bench driver on its default problem set, on the default device.
bench: build
	@$(BUILD)/bench/freednn-bench --default-set

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 900

coverage: build
	@python3 scripts/gen_coverage.py

clean:
	rm -rf $(BUILD)
