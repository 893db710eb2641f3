# SPDX-License-Identifier: GPL-2.0
# Common rules of a selftests group.  A group Makefile sets
#   TEST_GEN_PROGS  C tests (one .c each) built against the kselftest harness
#   TEST_PROGS      scripts run as they are
# and includes this file.  Everything lands in $(O) with the group's "config".
KSFT    := $(ROOT)/.cache/linux-source/tools/testing/selftests
# -Wall as the kernel's selftests build (the harness's EXPECT macros compare mixed
# signedness); snprintf() truncation is intended.
CFLAGS  += -O2 -g -Wall -Werror -Wno-format-truncation \
	   -D_GNU_SOURCE -I$(KSFT) -I$(ROOT)/selftests/lib \
	   -I$(ROOT)/include/uapi
LDLIBS  += -lnuma -lpthread

PROGS := $(addprefix $(O)/,$(TEST_GEN_PROGS))

.PHONY: all
all: $(PROGS) $(addprefix $(O)/,$(TEST_PROGS)) $(O)/config

# Programs that link libcxltier: a group lists them in CXLT_LIB_PROGS (before it
# includes this file).  They are linked again when the library changes: a program
# built against an older one can need symbol versions it no longer has.
CXLT_LIB := $(O)/../../lib/libcxltier.so
$(addprefix $(O)/,$(CXLT_LIB_PROGS)): CFLAGS += -I$(ROOT)/lib/include
$(addprefix $(O)/,$(CXLT_LIB_PROGS)): LDLIBS += -L$(O)/../../lib -lcxltier
$(addprefix $(O)/,$(CXLT_LIB_PROGS)): $(CXLT_LIB)

# Every test names its timeout (TEST_F_TIMEOUT): the harness's default of 30 s is too
# short for some guests and too long for most tests (see lib/cxlt_test.h).
$(O)/%: %.c $(wildcard $(ROOT)/selftests/lib/*.h) $(ROOT)/include/uapi/linux/cxltier.h | $(O)
	@if grep -nE '^(TEST|TEST_F|TEST_SIGNAL|TEST_F_SIGNAL)\(' $<; then \
		echo "$<: give every test an explicit timeout (TEST_F_TIMEOUT)" >&2; exit 1; fi
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS)

$(O)/%.sh: %.sh | $(O)
	install -m 0755 $< $@

$(O)/config: config | $(O)
	install -m 0644 $< $@

$(O):
	mkdir -p $@
