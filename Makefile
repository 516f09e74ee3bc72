# SPDX-License-Identifier: GPL-2.0
# ibtick: the kernel module (through Kbuild) and the userspace programs.
#
#   make              module, userspace and the test programs
#   make module       kmod/ibtick.ko against KDIR
#   make user         what is installed: CLI, tools, library (+ examples)
#   make tests        the test programs the VM suite and the fuzzer run
#   make check        userspace unit tests, KUnit, the VM suite; ends with
#                     "N passed, N failed, N skipped"
#   make install      modules_install (updates/) + depmod, CLI, tools, man
#                     pages, uapi headers, bash completion, the systemd unit
#                     that restores admin feeds, modprobe.d/modules-load.d
#                     files (an existing modprobe.d file is kept);
#                     DESTDIR= stages it (no depmod)
#   make clean
#
# KDIR defaults to the running kernel's build dir; when it has none (a build
# host, a container) to the newest installed linux-headers-*-amd64.

VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)

ifeq ($(origin KDIR),undefined)
  KDIR := $(wildcard /lib/modules/$(shell uname -r)/build)
  ifeq ($(KDIR),)
    KDIR := $(lastword $(sort $(wildcard /usr/src/linux-headers-*-amd64)))
    ifneq ($(KDIR),)
      $(info ibtick: running kernel $(shell uname -r) has no build dir; using $(KDIR))
    endif
  endif
endif
KVER ?= $(patsubst linux-headers-%,%,$(notdir $(KDIR)))

PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
MANDIR   ?= $(PREFIX)/share/man
UNITDIR  ?= /lib/systemd/system
DESTDIR  ?=

CC       ?= cc
WERROR   ?=
CFLAGS   ?= -O2 -g
UCFLAGS  := $(CFLAGS) -std=gnu11 -Wall -Wextra -Wshadow -Wformat=2 \
	    -Wmissing-prototypes -Wstrict-prototypes $(if $(WERROR),-Werror) \
	    -D_GNU_SOURCE -DIBTICK_VERSION='"$(VERSION)"' \
	    -Iinclude/uapi -Iinclude -Iuser/common
NL_CFLAGS := $(shell pkg-config --cflags libnl-genl-3.0 2>/dev/null)
NL_LIBS   := $(shell pkg-config --libs libnl-genl-3.0 2>/dev/null)

CLI_SRCS := user/ibtick/main.c user/ibtick/dev.c user/ibtick/nl.c \
	    user/ibtick/doctor.c user/ibtick/doctor_checks.c \
	    user/ibtick/feed.c user/ibtick/feedattr.c user/ibtick/sock.c \
	    user/ibtick/stats.c user/ibtick/monitor.c user/ibtick/portctr.c \
	    user/common/out.c user/common/names.c
CLI_HDRS := $(wildcard user/ibtick/*.h user/common/*.h include/uapi/linux/*.h)
UNIT_SRCS := tests/unit/unit_main.c tests/unit/out_test.c \
	     tests/unit/names_test.c tests/unit/libibtick_test.c \
	     tests/unit/latstats_test.c tests/unit/tickgen_test.c \
	     user/common/out.c user/common/names.c user/bench/latstats.c \
	     user/bench/tickgen.c \
	     tests/unit/doctor_test.c user/ibtick/doctor_checks.c

# libibtick: shared (soname libibtick.so.0) and static, the fast path inline
# in its header.
LIB_SOVER := 0
LIB_SO    := user/lib/libibtick.so.$(LIB_SOVER)
LIB_A     := user/lib/libibtick.a
LIB_HDRS  := user/lib/libibtick.h include/uapi/linux/ibtick.h
LIBDIR    ?= $(PREFIX)/lib
INCDIR    ?= $(PREFIX)/include
LIB_CFLAGS := $(UCFLAGS) -Iuser/lib -fvisibility=default
EXAMPLES  := user/examples/spin-reader user/examples/epoll-reader \
	     user/examples/publisher

.PHONY: all module user lib tests check unit kunit install clean

all: module user tests

module:
	@test -n "$(KDIR)" || { echo "ibtick: no kernel headers (set KDIR=)"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=$(or $(W),1) modules

TOOLS := user/tools/ibtick-pub user/tools/ibtick-sub \
	 user/tools/ibtick-perf user/tools/ibtick-gen user/tools/ibtick-md

user: user/ibtick/ibtick $(TOOLS) lib $(EXAMPLES)

TEST_PROGS := tests/vm/sockapi tests/vm/ringtest tests/vm/failnth \
	      tests/vm/nlstress tests/vm/uffdsend tests/fuzz/sysfuzz

tests: $(TEST_PROGS)

lib: $(LIB_SO) $(LIB_A)

user/lib/libibtick.o: user/lib/libibtick.c $(LIB_HDRS)
	$(CC) $(LIB_CFLAGS) -c -o $@ $<

user/lib/libibtick.pic.o: user/lib/libibtick.c $(LIB_HDRS)
	$(CC) $(LIB_CFLAGS) -fPIC -c -o $@ $<

$(LIB_SO): user/lib/libibtick.pic.o
	$(CC) -shared -Wl,-soname,libibtick.so.$(LIB_SOVER) -o $@ $<
	ln -sf libibtick.so.$(LIB_SOVER) user/lib/libibtick.so

$(LIB_A): user/lib/libibtick.o
	rm -f $@
	ar rcs $@ $<

# written at install time: it names the install's PREFIX/LIBDIR/INCDIR
PC_SED := sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	      -e 's|@INCDIR@|$(INCDIR)|' -e 's|@VERSION@|$(VERSION)|'

user/examples/%: user/examples/%.c $(LIB_A) $(LIB_HDRS)
	$(CC) $(UCFLAGS) -Iuser/lib -o $@ $< $(LIB_A)

# feed addresses from command-line words, through libibtick
ADDRARG := user/common/addrarg.c user/common/addrarg.h $(LIB_A) $(LIB_HDRS)

SYSFUZZ_SRCS := tests/fuzz/sysfuzz.c tests/fuzz/sysfuzz_state.c \
		tests/fuzz/sysfuzz_sock.c tests/fuzz/sysfuzz_mmap.c \
		tests/fuzz/sysfuzz_genl.c

tests/fuzz/sysfuzz: $(SYSFUZZ_SRCS) tests/fuzz/sysfuzz.h $(LIB_A) $(LIB_HDRS) include/uapi/linux/ibtick_netlink.h
	$(CC) $(UCFLAGS) -Iuser/lib -o $@ $(SYSFUZZ_SRCS) $(LIB_A)

tests/vm/failnth: tests/vm/failnth.c $(ADDRARG)
	$(CC) $(UCFLAGS) -Iuser/lib -o $@ $< user/common/addrarg.c $(LIB_A)

tests/vm/nlstress: tests/vm/nlstress.c include/uapi/linux/ibtick.h include/uapi/linux/ibtick_netlink.h
	$(CC) $(UCFLAGS) -o $@ $<

tests/vm/ringtest: tests/vm/ringtest.c $(ADDRARG)
	$(CC) $(UCFLAGS) -Iuser/lib -o $@ $< user/common/addrarg.c $(LIB_A) -lpthread

tests/vm/uffdsend: tests/vm/uffdsend.c include/uapi/linux/ibtick.h
	$(CC) $(UCFLAGS) -o $@ $< -lpthread

tests/vm/sockapi: tests/vm/sockapi.c $(ADDRARG)
	$(CC) $(UCFLAGS) -Iuser/lib -o $@ $< user/common/addrarg.c $(LIB_A) -lm

# the benchmark and market-data tools (user/bench): statistics, the
# synthetic stream, one reader interface over the four ways of reading a
# feed, numeric arguments
BENCH_CFLAGS := $(UCFLAGS) -Iuser/bench -Iuser/lib
TICKRD := user/bench/tickrd.c user/bench/tickrd.h user/bench/args.c user/bench/args.h

user/tools/ibtick-md: user/tools/ibtick-md.c user/bench/latstats.c user/bench/latstats.h user/bench/tickgen.c user/bench/tickgen.h $(TICKRD) $(LIB_A) $(LIB_HDRS)
	$(CC) $(BENCH_CFLAGS) -o $@ $< user/bench/latstats.c user/bench/tickgen.c user/bench/tickrd.c user/bench/args.c $(LIB_A) -lm

user/tools/ibtick-perf: user/tools/ibtick-perf.c user/bench/latstats.c user/bench/latstats.h $(TICKRD) $(LIB_A) $(LIB_HDRS)
	$(CC) $(BENCH_CFLAGS) -o $@ $< user/bench/latstats.c user/bench/tickrd.c user/bench/args.c $(LIB_A) -lm

user/tools/ibtick-gen: user/tools/ibtick-gen.c user/bench/tickgen.c user/bench/tickgen.h user/common/out.c user/common/out.h
	$(CC) $(BENCH_CFLAGS) -o $@ $< user/bench/tickgen.c user/common/out.c -lm

user/tools/%: user/tools/%.c $(ADDRARG)
	$(CC) $(UCFLAGS) -Iuser/lib -o $@ $< user/common/addrarg.c $(LIB_A) -lm

user/ibtick/ibtick: $(CLI_SRCS) $(CLI_HDRS)
	@test -n "$(NL_LIBS)" || { echo "ibtick: libnl-genl-3.0 not found (apt-get install libnl-genl-3-dev pkg-config)"; exit 1; }
	$(CC) $(UCFLAGS) $(NL_CFLAGS) -o $@ $(CLI_SRCS) $(NL_LIBS)

tests/unit/unit: $(UNIT_SRCS) $(CLI_HDRS) $(wildcard user/bench/*.h) $(LIB_A) tests/unit/unit.h
	$(CC) $(UCFLAGS) -Itests/unit -Iuser/bench -Iuser/lib -o $@ $(UNIT_SRCS) $(LIB_A) -lpthread -lm

unit: tests/unit/unit
	tests/unit/unit

kunit:
	scripts/kunit.sh

check:
	WERROR=1 scripts/check.sh

install: module user
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=updates \
		$(if $(DESTDIR),INSTALL_MOD_PATH=$(DESTDIR)) modules_install
	$(if $(DESTDIR),@echo "ibtick: staged in DESTDIR; run depmod -a $(KVER) on the target",depmod -a $(KVER))
	install -D -m 0755 user/ibtick/ibtick $(DESTDIR)$(BINDIR)/ibtick
	install -D -m 0755 user/tools/ibtick-pub $(DESTDIR)$(BINDIR)/ibtick-pub
	install -D -m 0755 user/tools/ibtick-sub $(DESTDIR)$(BINDIR)/ibtick-sub
	install -D -m 0755 user/tools/ibtick-perf $(DESTDIR)$(BINDIR)/ibtick-perf
	install -D -m 0755 user/tools/ibtick-gen $(DESTDIR)$(BINDIR)/ibtick-gen
	install -D -m 0755 user/tools/ibtick-md $(DESTDIR)$(BINDIR)/ibtick-md
	install -D -m 0644 user/man/ibtick.8 $(DESTDIR)$(MANDIR)/man8/ibtick.8
	install -D -m 0644 user/man/ibtick-dev.8 $(DESTDIR)$(MANDIR)/man8/ibtick-dev.8
	install -D -m 0644 user/man/ibtick-feed.8 $(DESTDIR)$(MANDIR)/man8/ibtick-feed.8
	install -D -m 0644 user/man/ibtick-sock.8 $(DESTDIR)$(MANDIR)/man8/ibtick-sock.8
	install -D -m 0644 user/man/ibtick-stats.8 $(DESTDIR)$(MANDIR)/man8/ibtick-stats.8
	install -D -m 0644 user/man/ibtick-monitor.8 $(DESTDIR)$(MANDIR)/man8/ibtick-monitor.8
	install -D -m 0644 user/man/ibtick-doctor.8 $(DESTDIR)$(MANDIR)/man8/ibtick-doctor.8
	install -D -m 0644 user/man/ibtick.7 $(DESTDIR)$(MANDIR)/man7/ibtick.7
	install -D -m 0644 user/man/ibtick-perf.1 $(DESTDIR)$(MANDIR)/man1/ibtick-perf.1
	install -D -m 0644 include/uapi/linux/ibtick.h $(DESTDIR)$(PREFIX)/include/linux/ibtick.h
	install -D -m 0644 include/uapi/linux/ibtick_netlink.h $(DESTDIR)$(PREFIX)/include/linux/ibtick_netlink.h
	install -D -m 0644 user/lib/libibtick.h $(DESTDIR)$(INCDIR)/libibtick.h
	install -D -m 0755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/libibtick.so.$(LIB_SOVER)
	ln -sf libibtick.so.$(LIB_SOVER) $(DESTDIR)$(LIBDIR)/libibtick.so
	install -D -m 0644 $(LIB_A) $(DESTDIR)$(LIBDIR)/libibtick.a
	mkdir -p $(DESTDIR)$(LIBDIR)/pkgconfig
	$(PC_SED) user/lib/libibtick.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/libibtick.pc
	for m in user/man/*.3; do install -D -m 0644 $$m $(DESTDIR)$(MANDIR)/man3/$$(basename $$m); done
	install -D -m 0644 scripts/ibtick-completion.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/ibtick
	mkdir -p $(DESTDIR)$(UNITDIR)
	sed 's|/usr/local/bin/ibtick|$(BINDIR)/ibtick|' scripts/ibtick-restore.service > $(DESTDIR)$(UNITDIR)/ibtick-restore.service
	install -D -m 0644 scripts/ibtick.modules-load.conf $(DESTDIR)/usr/lib/modules-load.d/ibtick.conf
	test -e $(DESTDIR)/etc/modprobe.d/ibtick.conf || \
		install -D -m 0644 scripts/ibtick.modprobe.conf $(DESTDIR)/etc/modprobe.d/ibtick.conf
	-test -n "$(DESTDIR)" || ldconfig

clean:
	-test -z "$(KDIR)" || $(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -f user/ibtick/ibtick tests/unit/unit $(TEST_PROGS) $(TOOLS) \
		$(EXAMPLES) user/lib/*.o user/lib/*.a user/lib/libibtick.so*
	rm -rf .check
