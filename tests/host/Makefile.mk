# tests/host/Makefile.mk - host unit tests for lib/, built with ASan/UBSan.
#
# Included by the top-level Makefile, or used on its own from the repository
# root:   make -f tests/host/Makefile.mk host-tests
#
# Targets:
#   host-tests       build $(BUILD)/host/lib_tests and run it (KTAP on stdout)
#   host-tests-build only build it
# Variables (defaults if unset): BUILD=build, Q=@ (Q= for full commands),
# HOSTCC=gcc. The binary also takes suite names: lib_tests string buddy.
#
# How lib/ meets the host libc: lib/ defines memcpy, snprintf, bsearch...
# under their standard names. Every lib/*.c and tests/host/test_*.c object
# is compiled with "-include tests/host/lib_prefix.h", which #defines those
# names to lib_memcpy, lib_snprintf, ... so the tests call (and ASan checks)
# lib's code while libc keeps its own. -fno-builtin stops gcc from replacing
# calls to the renamed functions with its own expansions. Files in the
# HOST_TEST_LIBC_SRCS list (the runner and libc wrappers) are compiled
# without the prefix and are the only ones allowed to include libc headers.
# Includes are written "lib/xxx.h" and resolved with -I. (repository root).

# Remember the includer's default goal so host-tests does not steal it.
HOST_TEST_MAKEFILE := $(lastword $(MAKEFILE_LIST))
HOST_TEST_SAVED_GOAL := $(.DEFAULT_GOAL)

BUILD ?= build
Q ?= @
HOSTCC ?= gcc

HOST_TEST_DIR := $(BUILD)/host
HOST_TEST_BIN := $(HOST_TEST_DIR)/lib_tests

HOST_TEST_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Werror \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -fno-builtin -I.
HOST_TEST_PREFIX := -include tests/host/lib_prefix.h

HOST_TEST_LIB_SRCS := $(wildcard lib/*.c)
HOST_TEST_SRCS := $(wildcard tests/host/test_*.c)
HOST_TEST_LIBC_SRCS := tests/host/ktest_host.c tests/host/host_libc.c

HOST_TEST_PREFIXED_OBJS := \
	$(patsubst %.c,$(HOST_TEST_DIR)/%.o,$(HOST_TEST_LIB_SRCS) $(HOST_TEST_SRCS))
HOST_TEST_LIBC_OBJS := $(patsubst %.c,$(HOST_TEST_DIR)/%.o,$(HOST_TEST_LIBC_SRCS))
HOST_TEST_OBJS := $(HOST_TEST_PREFIXED_OBJS) $(HOST_TEST_LIBC_OBJS)

.PHONY: host-tests host-tests-build

host-tests: $(HOST_TEST_BIN)
	$(Q)echo "  HOSTRUN $(HOST_TEST_BIN)"
	$(Q)$(HOST_TEST_BIN)

host-tests-build: $(HOST_TEST_BIN)

$(HOST_TEST_BIN): $(HOST_TEST_OBJS)
	$(Q)echo "  HOSTLD  $@"
	$(Q)$(HOSTCC) $(HOST_TEST_CFLAGS) -o $@ $^

$(HOST_TEST_PREFIXED_OBJS): $(HOST_TEST_DIR)/%.o: %.c tests/host/lib_prefix.h
	$(Q)mkdir -p $(dir $@)
	$(Q)echo "  HOSTCC  $<"
	$(Q)$(HOSTCC) $(HOST_TEST_CFLAGS) $(HOST_TEST_PREFIX) -MMD -MP -c -o $@ $<

$(HOST_TEST_LIBC_OBJS): $(HOST_TEST_DIR)/%.o: %.c
	$(Q)mkdir -p $(dir $@)
	$(Q)echo "  HOSTCC  $<"
	$(Q)$(HOSTCC) $(HOST_TEST_CFLAGS) -MMD -MP -c -o $@ $<

-include $(HOST_TEST_OBJS:.o=.d)

# When included (not run with -f directly), hand the default goal back.
ifneq ($(firstword $(MAKEFILE_LIST)),$(HOST_TEST_MAKEFILE))
.DEFAULT_GOAL := $(HOST_TEST_SAVED_GOAL)
endif
