# Front door of the project.  Every target is a thin call into scripts/.
#
#   make run    [ARCH=arm64|x86_64|riscv64|s390x]  build and boot the series, short report
#   make shell  [ARCH=...]             build, then boot into a shell in the guest
#   make test  [FLAVOUR=kasan] [ARCH=...|all]  x86_64 and arm64 (all: riscv64 and
#                                      s390x too), every test, pass/fail
#   make build  [ARCH=...|all]         only build the kernel(s)
#   make retest [ARCH=...] [ONLY=prog] rebuild only the tests, boot the last kernel
#   make tree | export | series-status the patch-series workflow
#   make check                         checkpatch, sparse and W=1 on the series
#   make bisect-check [FROM=N]         every prefix of the series (from the Nth) builds (both architectures)
#   make bench  [ARCH=...]             instruction counts, base against series
#   make difftest [ARCH=...] [SEED=] [SCENARIOS=]  generated scenarios, base against series
#   make difftest-record [ARCH=...]    record the base traces of make test's difftest batch
#   make deps                          install the Debian packages needed
#
# Variables: ARCH (default arm64), FLAVOUR (debug, the default, kasan or prod), VARIANT
# (series|base), CC=gcc or TOOLCHAIN=gcc for gcc instead of clang-16,
# CACHE (default ~/.cache/entry-lab), OUT (default ./out).

ARCH ?= arm64
FLAVOUR ?= debug
VARIANT ?= series
TOOLCHAIN ?= llvm
ifeq ($(origin CC),command line)
ifneq ($(findstring gcc,$(CC)),)
TOOLCHAIN := gcc
endif
endif
export TOOLCHAIN FLAVOUR VARIANT

ALL_ARCHS := $(shell awk '!/^\#/ && NF { print $$1 }' arch.tbl)
ifeq ($(ARCH),all)
ARCHS := $(ALL_ARCHS)
else
ARCHS := $(ARCH)
endif
# make test, make bench and make difftest run x86_64 and arm64 unless ARCH
# is given (ARCH=all: every row of arch.tbl, riscv64 and s390x too).
ifeq ($(origin ARCH),command line)
BOTH_ARCHS := $(ARCHS)
else
BOTH_ARCHS := x86_64 arm64
endif

S := scripts

.PHONY: all build run shell retest test bench difftest difftest-record tree export series-status check bisect-check deps clean help
all: build

help:
	@sed -n '2,/^$$/p' Makefile | sed 's/^# \{0,1\}//'

deps:
	@$(S)/deps.sh

build: deps
	@for a in $(ARCHS); do $(S)/build.sh $$a $(FLAVOUR) $(VARIANT) >/dev/null || exit 1; done

run: deps
	@$(S)/run.sh $(ARCH) $(FLAVOUR) $(VARIANT)

test: deps
	@case "$(FLAVOUR)" in debug|kasan) ;; *) \
		echo "error: make test runs FLAVOUR=debug (the default) or FLAVOUR=kasan, not '$(FLAVOUR)'" >&2; exit 2;; esac
	@[ "$(VARIANT)" = series ] || { \
		echo "error: make test tests the series, not VARIANT=$(VARIANT) (the base: make run VARIANT=base ARCH=...)" >&2; exit 2; }
	@$(S)/test.sh $(FLAVOUR) series $(BOTH_ARCHS)

shell: deps
	@$(S)/shell.sh $(ARCH) $(FLAVOUR) $(VARIANT)

retest:
	@NOBUILD=1 ONLY=$(ONLY) $(S)/run.sh $(ARCH) $(FLAVOUR) $(VARIANT)

bench: deps
	@$(S)/bench.sh $(BOTH_ARCHS)

difftest: deps
	@SEED=$(SEED) SCENARIOS=$(SCENARIOS) $(S)/difftest.sh $(BOTH_ARCHS)

difftest-record: deps
	@RECORD=1 SEED=$(SEED) SCENARIOS=$(SCENARIOS) $(S)/difftest.sh $(BOTH_ARCHS)

tree: deps
	@$(S)/series.sh tree

export:
	@$(S)/series.sh export

series-status:
	@$(S)/series.sh status

check: deps
	@$(S)/check.sh $(BOTH_ARCHS)

bisect-check: deps
	@$(S)/deps.sh cross
	@FROM="$(FROM)" $(S)/bisect-check.sh $(BOTH_ARCHS)

clean:
	rm -rf out
