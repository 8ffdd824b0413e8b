# baton - build, run and test.
#
#   make            build build/baton.iso
#   make run        boot it in QEMU (SMP=4 MEM=512M MACHINE=q35 ACCEL=tcg CMDLINE=
#                   FIRMWARE=bios; FIRMWARE=uefi boots through OVMF)
#   make test       host unit tests, then kernel test boots (on the SAN=1 image); ends
#                   "N passed, N failed"
#   make test-repeat  make test's boots N=10 times (K=name,... only those; LOAD=1 beside a
#                   torture; JOBS=n): which failed in which runs, each with its log
#   SAN=1           with any target: the sanitized build, build-san/ (UBSAN and the
#                   data-race detector; SAN=ubsan, SAN=kcsan: one of them; docs/sanitizers.md)
#   LEAN=1          the lean build, build-lean/: self-checks, trace and replay hooks and
#                   frame pointers compiled out; make bench measures the burst's floor on
#                   it (docs/bench.md); not for use
#   LAB=name        make run, test-boot and the torture targets boot a lab's image: the
#                   bug docs/labs/name.patch plants, built in BUILD/lab-name/ (docs/labs.md)
#   make torture    CPU-hotplug torture (DURATION=3600 s, INTERVAL=0 ms, SMP=4, SEED=0;
#                   CYCLES=N instead of a duration; TORTURE_ARGS= more kernel parameters;
#                   DETERMINISTIC=1: under -icount, all from SEED, replays exactly)
#   make torture-replay LOG=path   run a deterministic run's log again, with its trace
#   make torture-shrink LOG=path   the smallest run found that fails the same way
#   make torture-search TORTURE_ARGS=... [SEEDS=1-100] [CYCLES=300]   seeds until one fails
#   make torture-qmp  vCPU hot-plug from the host under the torture (DURATION=3600 s,
#                   SMP=2, MAXCPUS=6, SEED=0, TORTURE_HOTPLUG=both)
#   make test-boot  one boot of TESTS=suite,... (SMP, CMDLINE=, DETERMINISTIC=1 SEED=n;
#                   TIMES=n: n times, as test-repeat runs its boots)
#   make bench      benchmarks under -icount, checked against targets (SMP=4, BENCH=all)
#   make debug      QEMU waiting for GDB, and GDB attached, stopped at kmain
#   make format     reformat the C sources with clang-format-14 (make test checks them)
#   make clean
#
# CROSS_COMPILE=x86_64-elf- selects a cross toolchain; the host gcc is the
# default (it builds freestanding x86-64 code). V=1 shows the commands.

CROSS_COMPILE ?=
CC := $(CROSS_COMPILE)gcc
LD := $(CROSS_COMPILE)ld
NM := $(CROSS_COMPILE)nm
PYTHON ?= python3
# Debian's own interpreter, where python3-matplotlib is installed (a python3
# of pyenv or a venv earlier in PATH would not see it): plots only.
PLOT_PYTHON ?= /usr/bin/python3

SMP ?= 4
MEM ?= 512M
MACHINE ?= q35
ACCEL ?= tcg
CMDLINE ?=
# bios (SeaBIOS) or uefi (OVMF, package ovmf): make run and make debug.
FIRMWARE ?= bios

ifeq ($(V),1)
Q :=
else
Q := @
endif

GCC_INCLUDE := $(shell $(CC) -print-file-name=include 2>/dev/null)
# -fms-extensions: a tagged struct embedded without a name (kernel/cpu_local.h's
# struct percpu holds the arch's fields so, and the arch never sees the
# kernel's). It changes no code; Linux builds with it since 6.19, for the same
# use.
CFLAGS := -std=gnu11 -O2 -g -ffreestanding -nostdinc -isystem $(GCC_INCLUDE) \
	-fno-pie -fno-pic -mcmodel=kernel -mno-red-zone -mgeneral-regs-only \
	-mno-mmx -mno-sse -mno-sse2 -mno-80387 -fno-stack-protector \
	-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-optimize-sibling-calls \
	-fno-asynchronous-unwind-tables -fno-strict-aliasing -fcf-protection=none \
	-Wall -Wextra -Werror -Wno-unused-parameter -Wstrict-prototypes \
	-Wmissing-prototypes -Wshadow -Wvla -fms-extensions -I. -MMD -MP
# SAN: the sanitizers (docs/sanitizers.md), in a build beside the plain one.
# SAN=1: UBSAN and the data-race detector (kernel/debug/ubsan.c,
# kernel/debug/kcsan.c), in build-san; SAN=ubsan or SAN=kcsan: one of them
# (build-ubsan, build-kcsan). make test boots SAN=1 (TEST_SAN=0: the plain build); make run,
# bench, torture and the others boot the plain build unless SAN is given.
SAN ?= 0
TEST_SAN ?= 1
UBSAN_CFLAGS := -fsanitize=shift,integer-divide-by-zero,signed-integer-overflow,bounds,bool \
	-fsanitize=alignment,unreachable,builtin,null,pointer-overflow \
	-fsanitize=nonnull-attribute,returns-nonnull-attribute
KCSAN_CFLAGS := -fsanitize=thread --param tsan-distinguish-volatile=1 \
	--param tsan-instrument-func-entry-exit=0 -Wno-tsan
# Not watched by the detector: its runtime and UBSAN's, interrupt and
# exception entry, early per-CPU and boot set-up, the spinlock and the
# scheduler's context switch, the clock, the string functions and the report
# path (docs/sanitizers.md says why each).
KCSAN_EXCLUDE := kernel/debug/kcsan.c kernel/debug/ubsan.c arch/x86_64/traps.c \
	arch/x86_64/idt.c arch/x86_64/percpu.c arch/x86_64/smpboot.c arch/x86_64/gdt.c \
	kernel/spinlock.c arch/x86_64/tsc.c kernel/sched.c kernel/sched_attrs.c kernel/time.c \
	kernel/main.c kernel/panic.c kernel/tools/ktest_expect.c kernel/printk.c kernel/ksyms.c \
	kernel/debug/lockdep.c kernel/debug/lockdep_report.c lib/string.c lib/printf.c
UBSAN_EXCLUDE := kernel/debug/ubsan.c kernel/debug/kcsan.c
# The flags of one file: CFLAGS less the instrumentation it is excluded from.
file_cflags = $(filter-out $(if $(filter $1,$(UBSAN_EXCLUDE)),$(UBSAN_CFLAGS)) \
	$(if $(filter $1,$(KCSAN_EXCLUDE)),$(KCSAN_CFLAGS)),$(CFLAGS))
# With both, GCC 12's bool check (-fsanitize=bool) turns a volatile load of a
# bool (READ_ONCE of a flag) into a plain one for the detector, which would
# then report marked accesses as races: SAN=1 checks no bool loads, and make
# test boots a SAN=ubsan image besides, which does.
ifeq ($(SAN),1)
BUILD ?= build-san
CFLAGS += $(UBSAN_CFLAGS) -fno-sanitize=bool -DCONFIG_UBSAN $(KCSAN_CFLAGS) -DCONFIG_KCSAN
else ifeq ($(SAN),ubsan)
BUILD ?= build-ubsan
CFLAGS += $(UBSAN_CFLAGS) -DCONFIG_UBSAN -DCONFIG_UBSAN_BOOL
else ifeq ($(SAN),kcsan)
BUILD ?= build-kcsan
CFLAGS += $(KCSAN_CFLAGS) -DCONFIG_KCSAN
else ifneq ($(SAN),0)
$(error SAN=$(SAN): say SAN=1 (both sanitizers), SAN=ubsan, SAN=kcsan or SAN=0)
endif
# LEAN=1: the path cmwq needs and nothing else, to measure the burst's floor
# (make bench; docs/bench.md): the list, lock-owner and held-lock checks, the
# trace, delay-point and validator hooks (#ifndef CONFIG_LEAN where each is) and
# the frame pointers compiled out. The kernel's own reports still work; the
# shell's trace records nothing and deterministic mode has no delay points.
LEAN ?= 0
ifeq ($(LEAN),1)
ifneq ($(SAN),0)
$(error LEAN=1 and SAN=$(SAN): the lean build has no sanitizers)
endif
BUILD ?= build-lean
CFLAGS := $(filter-out -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
	-fno-optimize-sibling-calls,$(CFLAGS)) -fomit-frame-pointer -DCONFIG_LEAN
else ifneq ($(LEAN),0)
$(error LEAN=$(LEAN): say LEAN=1 or LEAN=0)
endif
BUILD ?= build
ASFLAGS := -D__ASSEMBLY__ -I. -MMD -MP -Wa,--fatal-warnings -Werror
LD_RWX := $(shell $(LD) --help 2>/dev/null | grep -q no-warn-rwx-segments && echo --no-warn-rwx-segments)
LDFLAGS := -nostdlib -n -T linker.ld -z max-page-size=0x1000 -z noexecstack $(LD_RWX) --fatal-warnings

SRCS := $(wildcard arch/x86_64/*.S arch/x86_64/*.c kernel/*.c kernel/debug/*.c kernel/mm/*.c \
	kernel/workqueue/*.c \
	kernel/tools/*.c drivers/*.c lib/*.c tests/kernel/*.c)
OBJS := $(patsubst %,$(BUILD)/obj/%.o,$(SRCS))

.PHONY: FORCE all iso run test test-images lab-images test-repeat test-boot test-matrix torture torture-replay torture-shrink torture-search torture-qmp bench debug format clean deps host-tests kernel-tests compile_commands.json
all: iso
iso: $(BUILD)/baton.iso $(BUILD)/ktest-manifest.json

$(BUILD)/obj/%.c.o: %.c Makefile
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(call file_cflags,$<) -c $< -o $@

$(BUILD)/obj/%.S.o: %.S Makefile
	@mkdir -p $(@D)
	@echo "  AS      $<"
	$(Q)$(CC) $(CFLAGS) $(ASFLAGS) -c $< -o $@

# Two-pass link: pass 1 carries an empty symbol table; its text symbols
# become the table of the final image. .ksyms sits after .text, so no
# function moves between the passes; the check below proves it.
$(BUILD)/baton.elf: $(OBJS) linker.ld scripts/mksyms.py
	@echo "  LD      $@"
	$(Q)$(PYTHON) scripts/mksyms.py /dev/null > $(BUILD)/ksyms0.S
	$(Q)$(CC) $(CFLAGS) $(ASFLAGS) -c $(BUILD)/ksyms0.S -o $(BUILD)/ksyms0.o
	$(Q)$(LD) $(LDFLAGS) -o $(BUILD)/baton.pass1.elf $(OBJS) $(BUILD)/ksyms0.o
	$(Q)$(NM) -n -S --defined-only $(BUILD)/baton.pass1.elf > $(BUILD)/baton.pass1.nm
	$(Q)$(PYTHON) scripts/mksyms.py $(BUILD)/baton.pass1.nm > $(BUILD)/ksyms.S
	$(Q)$(CC) $(CFLAGS) $(ASFLAGS) -c $(BUILD)/ksyms.S -o $(BUILD)/ksyms.o
	$(Q)$(LD) $(LDFLAGS) -o $@.tmp $(OBJS) $(BUILD)/ksyms.o
	$(Q)$(NM) -n -S --defined-only $@.tmp > $(BUILD)/baton.nm
	$(Q)$(PYTHON) scripts/mksyms.py $(BUILD)/baton.nm | cmp -s - $(BUILD)/ksyms.S || \
		{ echo "symbol table moved between link passes" >&2; exit 1; }
	$(Q)mv $@.tmp $@

# The GRUB platforms grub-mkrescue finds (i386-pc: BIOS, x86_64-efi: UEFI);
# the file changes, and the ISO is made again, when one is installed.
$(BUILD)/grub-platforms: FORCE
	$(Q)mkdir -p $(@D) && ls /usr/lib/grub 2>/dev/null | grep -x -e i386-pc -e x86_64-efi \
		> $@.tmp; cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
FORCE:

$(BUILD)/baton.iso: $(BUILD)/baton.elf scripts/grub.cfg $(BUILD)/grub-platforms
	@echo "  ISO     $@"
	$(Q)rm -rf $(BUILD)/isodir && mkdir -p $(BUILD)/isodir/boot/grub
	$(Q)cp $(BUILD)/baton.elf $(BUILD)/isodir/boot/baton.elf
	$(Q)cp scripts/grub.cfg $(BUILD)/isodir/boot/grub/grub.cfg
	$(Q)grub-mkrescue -o $@ $(BUILD)/isodir > $(BUILD)/grub-mkrescue.log 2>&1 || \
		{ cat $(BUILD)/grub-mkrescue.log >&2; exit 1; }

# The suites and cases of the kernel's own table (kernel/tools/ktest.h), read
# from the image: the test runner checks every boot reports each of them.
$(BUILD)/ktest-manifest.json: $(BUILD)/baton.elf scripts/ktest_manifest.py
	@echo "  GEN     $@"
	$(Q)$(PYTHON) scripts/ktest_manifest.py $< > $@.tmp && mv $@.tmp $@

deps:
	$(Q)sh scripts/deps.sh

# The labs' planted bugs (docs/labs.md, "The labs' images"): a patch each,
# docs/labs/NAME.patch, which scripts/lab_image.sh applies to a copy of the
# sources in $(BUILD)/lab-NAME/ and builds there, compiling only what it
# changes. LAB=NAME: the targets that boot, boot that image (BOOT_ISO).
LABS := $(patsubst docs/labs/%.patch,%,$(wildcard docs/labs/*.patch))
LAB ?=
BOOT_ISO = $(if $(LAB),$(BUILD)/lab-$(LAB)/$(BUILD)/baton.iso,$(BUILD)/baton.iso)
LAB_IMAGE = $(if $(LAB),lab-image-$(LAB))
lab-image-%: iso FORCE
	@echo "  LAB     $(BUILD)/lab-$*"
	$(Q)MAKE='$(MAKE)' sh scripts/lab_image.sh $* $(BUILD) $(SAN)
lab-images: $(addprefix lab-image-,$(LABS))

run: deps iso $(LAB_IMAGE)
	$(Q)$(PYTHON) tests/harness/qemu.py run --iso $(BOOT_ISO) --smp '$(SMP)' --mem $(MEM) \
		--machine $(MACHINE) --accel $(ACCEL) --cmdline '$(CMDLINE)' --firmware '$(FIRMWARE)'

debug: deps iso
	$(Q)$(PYTHON) tests/harness/qemu.py debug --iso $(BUILD)/baton.iso --elf $(BUILD)/baton.elf \
		--smp '$(SMP)' --mem $(MEM) --machine $(MACHINE) --cmdline '$(CMDLINE)' \
		--firmware '$(FIRMWARE)'

include tests/host/Makefile.mk

kernel-tests: deps iso lab-images
	$(Q)$(PYTHON) tests/harness/run_tests.py --iso $(BUILD)/baton.iso --build $(BUILD) kernel

# The kernel boots run the sanitized image (TEST_SAN=1: build-san). One boot
# runs build-ubsan, whose UBSAN checks bool loads too, and one the plain
# build, a bound of guest time (tests/harness/run_tests.py says which). TEST_SAN=0:
# every boot the plain image (the sanitizers' own suites then fail). The lean
# image (LEAN=1) is built too, though no test boots it: make bench does.
# test-images: the images the boots of make test and make test-repeat run;
# TEST_RUNNER: tests/harness/run_tests.py given them.
ifeq ($(TEST_SAN),1)
TEST_BUILD ?= build-san
TEST_UBSAN_BUILD ?= build-ubsan
# The three images are built with a job per core (BUILD_JOBS).
BUILD_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
TEST_RUNNER = $(PYTHON) tests/harness/run_tests.py --iso $(TEST_BUILD)/baton.iso \
	--build $(TEST_BUILD) --ubsan-iso $(TEST_UBSAN_BUILD)/baton.iso --plain-iso $(BUILD)/baton.iso
test-images: deps
	$(Q)$(MAKE) --no-print-directory -j$(BUILD_JOBS) iso
	$(Q)$(MAKE) --no-print-directory -j$(BUILD_JOBS) SAN=1 BUILD=$(TEST_BUILD) iso lab-images
	$(Q)$(MAKE) --no-print-directory -j$(BUILD_JOBS) SAN=ubsan BUILD=$(TEST_UBSAN_BUILD) iso
	$(Q)$(MAKE) --no-print-directory -j$(BUILD_JOBS) LEAN=1 SAN=0 BUILD=build-lean iso # built, so it cannot rot
test: test-images
	$(Q)$(MAKE) --no-print-directory SAN=1 BUILD=$(TEST_BUILD) host-tests-build
	$(Q)$(TEST_RUNNER) all
else
TEST_RUNNER = $(PYTHON) tests/harness/run_tests.py --iso $(BUILD)/baton.iso --build $(BUILD)
test-images: deps iso lab-images
test: test-images
	$(Q)$(MAKE) --no-print-directory host-tests-build
	$(Q)$(TEST_RUNNER) all
endif

# Flaky tests: make test's boots (not its host checks) N times, those whose
# name contains a word of K= only, beside a torture with LOAD=1; each run's
# logs in TEST_BUILD/test-logs/repeat/run-NN, then a table of what failed
# in which runs. JOBS=n boots at once (as for make test: one more than the
# host's cores).
N ?= 10
LOAD ?= 0
K ?=
test-repeat: test-images
	$(Q)$(TEST_RUNNER) repeat --times $(N) --load $(LOAD) -k '$(K)'

# One boot of the suites in TESTS (test=), with CMDLINE as more kernel
# parameters; DETERMINISTIC=1 SEED=n: under -icount, the same log every time.
# TIMES=n (or LOAD=1): that boot n times, run and tabled as test-repeat's.
TESTS ?= all
test-boot: deps iso $(LAB_IMAGE)
	$(Q)$(PYTHON) tests/harness/run_tests.py --iso $(BUILD)/baton.iso --build $(BUILD) --lab '$(LAB)' \
		boot --tests '$(TESTS)' --smp '$(SMP)' --mem $(MEM) --machine $(MACHINE) \
		--seed $(SEED) --deterministic $(DETERMINISTIC) --args '$(CMDLINE)' \
		--times $(or $(TIMES),1) --load $(LOAD)

# Every -smp from 1 to 64 on pc and q35, plus topologies, and every suite at -smp 16, 32
# and 64 on both (not in `make test`; README.md says how long it takes).
test-matrix: deps iso
	$(Q)$(PYTHON) tests/harness/run_tests.py --iso $(BUILD)/baton.iso --build $(BUILD) matrix

# The CPU-hotplug torture for DURATION seconds (kernel/tools/torture.h): fails
# unless its one verdict line (build/test-logs/torture.log) is "torture: PASS".
DURATION ?= 3600
INTERVAL ?= 0
SEED ?= 0
CYCLES ?= 0
DETERMINISTIC ?= 0
TORTURE_ARGS ?=
torture: deps iso $(LAB_IMAGE)
	$(Q)$(PYTHON) tests/harness/run_tests.py --iso $(BUILD)/baton.iso --build $(BUILD) --lab '$(LAB)' \
		torture \
		--duration $(DURATION) --interval $(INTERVAL) --seed $(SEED) --smp '$(SMP)' \
		--mem $(MEM) --machine $(MACHINE) --cycles $(CYCLES) \
		--deterministic $(DETERMINISTIC) --args '$(TORTURE_ARGS)'

# Deterministic runs (docs/stress-testing.md): replay one from its log,
# shrink it, or search seeds for a failure.
torture-replay: deps iso $(LAB_IMAGE)
	$(Q)test -n '$(LOG)' || { echo "make torture-replay LOG=path-of-a-deterministic-run" >&2; exit 2; }
	$(Q)$(PYTHON) tests/replay/torture_replay.py --iso $(BUILD)/baton.iso --build $(BUILD) --lab '$(LAB)' \
		replay '$(LOG)' --times $(or $(TIMES),1)

torture-shrink: deps iso $(LAB_IMAGE)
	$(Q)test -n '$(LOG)' || { echo "make torture-shrink LOG=path-of-a-failing-deterministic-run" >&2; exit 2; }
	$(Q)$(PYTHON) tests/replay/torture_replay.py --iso $(BUILD)/baton.iso --build $(BUILD) --lab '$(LAB)' \
		shrink '$(LOG)'

SEEDS ?= 1-100
torture-search: deps iso $(LAB_IMAGE)
	$(Q)$(PYTHON) tests/replay/torture_replay.py --iso $(BUILD)/baton.iso --build $(BUILD) --lab '$(LAB)' \
		search \
		--first $(firstword $(subst -, ,$(SEEDS))) --last $(lastword $(subst -, ,$(SEEDS))) \
		--smp '$(SMP)' --mem $(MEM) --machine $(MACHINE) \
		--cycles $(if $(filter-out 0,$(CYCLES)),$(CYCLES),300) --interval $(INTERVAL) \
		--args '$(TORTURE_ARGS)'

# vCPU hot-plug from the host (tests/vm/torture_qmp.py): QMP device_add/device_del
# at random for DURATION seconds while the torture's load and checks run
# (TORTURE_HOTPLUG=both: its own hotplug loop too; host: not); SEED 0 = random,
# printed. SMP defaults to 2 here unless given (it is 4 for run and torture).
MAXCPUS ?= 6
TORTURE_HOTPLUG ?= both
torture-qmp: deps iso
	$(Q)$(PYTHON) tests/vm/torture_qmp.py --iso $(BUILD)/baton.iso --build $(BUILD) \
		--duration $(DURATION) --smp $(if $(filter file,$(origin SMP)),2,$(SMP)) \
		--maxcpus $(MAXCPUS) --seed $(SEED) --mode $(TORTURE_HOTPLUG) --mem $(MEM) \
		--machine $(MACHINE)

# Hot-path figures and the comparisons with the models cmwq replaced, under
# QEMU's -icount (tests/harness/bench.py): fails if a target or a claim is missed;
# the figures go to build/bench.json and, for BENCH=all, the plots to docs/.
BENCH ?= all
# The lean build (LEAN=1) runs the burst again: the floor of the path cmwq needs.
bench: deps iso
	$(Q)sh scripts/deps.sh bench
	$(Q)$(MAKE) --no-print-directory LEAN=1 SAN=0 BUILD=build-lean iso
	$(Q)status=0; $(PYTHON) tests/harness/bench.py --iso $(BUILD)/baton.iso --build $(BUILD) \
		--lean-iso build-lean/baton.iso --smp '$(SMP)' --only '$(BENCH)' || status=$$?; \
	if [ '$(BENCH)' = all ] && [ -s $(BUILD)/bench.json ]; then \
		$(PLOT_PYTHON) scripts/bench_plots.py --json $(BUILD)/bench.json --out docs || status=1; \
	fi; exit $$status

# The house style (.clang-format), as tests/checks/check_format.py checks it.
format: deps
	$(Q)find arch kernel lib drivers tests -name '*.[ch]' | xargs clang-format-14 -i

compile_commands.json:
	$(Q)$(MAKE) -B -n V=1 all | $(PYTHON) scripts/compile_commands.py > compile_commands.json

clean:
	$(Q)rm -rf $(BUILD) build-san build-ubsan build-kcsan build-lean

-include $(OBJS:.o=.d)
