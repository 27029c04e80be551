# Slope: the README's two commands.
#   make demo   build, then run the box-filter demo on the default device
#   make test   install missing packages, configure, build, run every test (ctest)
#   make test SANITIZE=address,undefined   the same under ASan+UBSan (own build folder)
# Other targets: make build, make bench, make patho, make fuzz, make fuzz-compile,
# make fuzz-struct, make fuzz-ir, make fuzz-grad, make clean.

SANITIZE ?=
JOBS ?= $(shell nproc)
BUILD_TYPE ?= RelWithDebInfo
ifeq ($(strip $(SANITIZE)),)
  BUILD_DIR ?= build
else
  BUILD_DIR ?= build-$(subst $(comma),-,$(SANITIZE))
endif
comma := ,

# ccache: paths below the checkout are hashed relative to it, so a fresh clone in
# another folder (as CI makes) reuses the cache.
export CCACHE_BASEDIR ?= $(CURDIR)
export CCACHE_NOHASHDIR ?= true

# Sanitizer runtime settings for every process the tests start.
export ASAN_OPTIONS ?= detect_leaks=1:abort_on_error=0:strict_string_checks=1
export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1
# LeakSanitizer does not scan thread-local storage: with GCC 12's libasan on glibc 2.36
# its walk of the dynamic TLS that the LLVM plugin leaves on the CPU backend's worker
# threads crashes the leak check itself ("Tracer caught signal 11").
export LSAN_OPTIONS ?= use_tls=0

.PHONY: all deps configure build test demo bench fuzz fuzz-compile fuzz-struct fuzz-ir fuzz-build fuzz-grad patho clean

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	@mkdir -p $(BUILD_DIR)
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DSLOPE_SANITIZE=$(SANITIZE) -DSLOPE_WERROR=ON > $(BUILD_DIR)/configure.log 2>&1 || \
	  { cat $(BUILD_DIR)/configure.log; exit 1; }

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	@cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

demo: build
	@$(BUILD_DIR)/examples/box_filter_demo examples/box_filter.slang

# The pathological-input matrix at every size (CI runs the sizes that fit: ctest patho/matrix).
patho: build
	@python3 tests/patho/patho.py $(BUILD_DIR)/tools/slopec/slopec

# The fuzzers (clang + libFuzzer + ASan/UBSan) for FUZZ_SECONDS in all: the compile,
# structure and IR fuzzers for a third each, each after replaying its saved regressions;
# `make fuzz-compile`, `make fuzz-struct` and `make fuzz-ir` run one for all of FUZZ_SECONDS.
FUZZ_SECONDS ?= 60
fuzz: fuzz-build
	@bash tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS) all

fuzz-compile: fuzz-build
	@bash tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS) compile

fuzz-struct: fuzz-build
	@bash tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS) struct

fuzz-ir: fuzz-build
	@bash tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS) ir

fuzz-build: deps
	@mkdir -p build-fuzz
	@CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DSLOPE_FUZZ=ON -DSLOPE_WERROR=OFF -DSLOPE_ENABLE_VULKAN=OFF > build-fuzz/configure.log 2>&1 || \
	  { cat build-fuzz/configure.log; exit 1; }
	@cmake --build build-fuzz -j $(JOBS) --target slope_compile_fuzzer slope_struct_fuzzer slope_ir_fuzzer

# The gradient fuzzer for FUZZ_SECONDS on fresh seeds (CI runs a fixed round: ctest fuzz/grad);
# failing programs, reduced, go to $(BUILD_DIR)/fuzz-grad/. FUZZ_SEED=N starts at seed N.
FUZZ_SEED ?=
FUZZ_JOBS ?= 1
fuzz-grad: build
	@python3 tests/fuzz/grad/fuzz_grad.py --slope-run $(BUILD_DIR)/tools/slope-run/slope-run \
	  --seconds $(FUZZ_SECONDS) --jobs $(FUZZ_JOBS) --out $(BUILD_DIR)/fuzz-grad \
	  $(if $(FUZZ_SEED),--first-seed $(FUZZ_SEED))

bench: build
	@python3 tests/bench/compile_small $(BUILD_DIR)
	@python3 tests/bench/check_time $(BUILD_DIR)
	@python3 tests/bench/generic_depth $(BUILD_DIR)
	@python3 tests/bench/parse $(BUILD_DIR)

clean:
	rm -rf build build-*
