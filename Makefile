# SPDX-License-Identifier: GPL-2.0
# ibtick: the kernel module (through Kbuild) and the userspace programs.
#
#   make              module, userspace and the test programs
#   make module       kmod/ibtick.ko against KDIR
#   make sparse       the module through sparse (make check's build stage)
#   make user         what is installed: CLI, tools, library (+ examples)
#   make tests        the test programs the VM suite and the fuzzer run
#   make check        userspace unit tests, KUnit, the VM suite; ends with
#                     "N passed, N failed, N skipped"
#   make install      the module (updates/) + depmod, and install-user:
#                     CLI, tools, library, headers, libibtick.pc, man
#                     pages, bash completion, the systemd unit that
#                     restores admin feeds, the relay's unit template
#                     (ibtick-relay@.service), the modules-load.d file, a
#                     modprobe.d file (an existing one is kept) and the
#                     Wireshark dissector (ibtick.lua); PREFIX=
#                     and DESTDIR= apply to all of it (see Installation)
#   make install-user the same without the module (DKMS hosts)
#   make uninstall    removes it again
#   make clean
#
# KDIR defaults to the running kernel's build dir; when it has none (a build
# host, a container) to the newest installed linux-headers-*-amd64.

# the one version (dkms.conf; scripts/version.sh)
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

PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
MANDIR   ?= $(PREFIX)/share/man
DESTDIR  ?=

CC       ?= cc
WERROR   ?=
CFLAGS   ?= -O2 -g
CPPFLAGS ?=
LDFLAGS  ?=
UCFLAGS  := $(CPPFLAGS) $(CFLAGS) -std=gnu11 -Wall -Wextra -Wshadow -Wformat=2 \
	    -Wmissing-prototypes -Wstrict-prototypes $(if $(WERROR),-Werror) \
	    -D_GNU_SOURCE -DIBTICK_VERSION='"$(VERSION)"' \
	    -Iinclude/uapi -Iinclude -Iuser/common
NL_CFLAGS := $(shell pkg-config --cflags libnl-genl-3.0 2>/dev/null)
NL_LIBS   := $(shell pkg-config --libs libnl-genl-3.0 2>/dev/null)

CLI_SRCS := user/ibtick/main.c user/ibtick/dev.c user/ibtick/nl.c \
	    user/ibtick/doctor.c user/ibtick/doctor_checks.c \
	    user/ibtick/feed.c user/ibtick/feedattr.c user/ibtick/arbattr.c \
	    user/ibtick/sock.c user/ibtick/conn.c user/ibtick/rule.c user/ibtick/relay.c \
	    user/ibtick/stats.c user/ibtick/monitor.c user/ibtick/portctr.c \
	    user/common/out.c user/common/names.c
CLI_HDRS := $(wildcard user/ibtick/*.h user/common/*.h include/uapi/linux/*.h)
UNIT_SRCS := tests/unit/unit_main.c tests/unit/out_test.c \
	     tests/unit/names_test.c tests/unit/libibtick_test.c \
	     tests/unit/latstats_test.c tests/unit/tickgen_test.c \
	     user/common/out.c user/common/names.c user/bench/latstats.c \
	     user/bench/tickgen.c \
	     tests/unit/doctor_test.c user/ibtick/doctor_checks.c \
	     tests/unit/runconf_test.c user/preload/runconf.c \
	     tests/unit/arpparse_test.c user/preload/arpparse.c \
	     tests/unit/ring_test.c user/preload/ring.c user/preload/rx.c \
	     user/preload/srcaddr.c \
	     tests/unit/relayarg_test.c user/common/relayarg.c \
	     tests/unit/ibport_test.c user/bench/ibport.c

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
	     user/examples/publisher user/examples/order-gateway \
	     user/examples/order-client

.PHONY: all module sparse user lib tests check unit kunit install install-module install-user uninstall uninstall-module uninstall-user clean

all: module user tests

module:
	@test -n "$(KDIR)" || { echo "ibtick: no kernel headers (set KDIR=)"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=$(or $(W),1) modules

# sparse over every module source (C=2: also those already built)
sparse:
	@test -n "$(KDIR)" || { echo "ibtick: no kernel headers (set KDIR=)"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 C=2 modules

TOOLS := user/tools/ibtick-pub user/tools/ibtick-sub \
	 user/tools/ibtick-perf user/tools/ibtick-gen user/tools/ibtick-md \
	 user/tools/ibtick-relay

# ibtick-run and the library it preloads (user/preload): not linked by
# anyone, so a private directory, PKGLIBDIR, rather than a soname in LIBDIR
PKGLIBDIR    ?= $(LIBDIR)/ibtick
PRELOAD_SO   := user/preload/libibtick-preload.so
PRELOAD_SRCS := user/preload/init.c user/preload/log.c user/preload/table.c \
		user/preload/member.c user/preload/rx.c user/preload/tx.c \
		user/preload/srcaddr.c user/preload/arpparse.c user/preload/hooks.c \
		user/preload/runconf.c user/preload/ring.c user/preload/wait.c \
		user/lib/libibtick.c
PRELOAD_HDRS := user/preload/preload.h user/preload/runconf.h include/uapi/linux/ibtick.h \
		user/lib/libibtick.h
RUN          := user/preload/ibtick-run

user: user/ibtick/ibtick $(TOOLS) lib $(EXAMPLES) $(RUN) $(PRELOAD_SO)

# only the interposed functions are exported (hooks.c marks them)
$(PRELOAD_SO): $(PRELOAD_SRCS) $(PRELOAD_HDRS)
	$(CC) $(UCFLAGS) -Iuser/preload -Iuser/lib -fPIC -fvisibility=hidden -flto=auto -shared \
		-Wl,-soname,libibtick-preload.so $(LDFLAGS) -o $@ $(PRELOAD_SRCS) -ldl -lpthread

# where ibtick-run finds the library once installed; rewritten only when
# PKGLIBDIR changes, so that a later make install PREFIX=... rebuilds it
user/preload/libpath.h: FORCE
	@echo '#define PRELOAD_PATH "$(PKGLIBDIR)/libibtick-preload.so"' > $@.tmp; \
	cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp

$(RUN): user/preload/ibtick-run.c user/preload/runconf.c user/preload/runconf.h user/preload/libpath.h dkms.conf
	$(CC) $(UCFLAGS) -Iuser/preload -include user/preload/libpath.h $(LDFLAGS) -o $@ \
		user/preload/ibtick-run.c user/preload/runconf.c

.PHONY: FORCE

TEST_PROGS := tests/vm/sockapi tests/vm/multifeed tests/vm/arbtest tests/vm/ringtest tests/vm/failnth \
	      tests/vm/nlstress tests/vm/uffdsend tests/fuzz/sysfuzz \
	      tests/vm/mcsend tests/vm/mcrecv tests/vm/conntest

tests: $(TEST_PROGS)

lib: $(LIB_SO) $(LIB_A)

user/lib/libibtick.o: user/lib/libibtick.c $(LIB_HDRS)
	$(CC) $(LIB_CFLAGS) -c -o $@ $<

user/lib/libibtick.pic.o: user/lib/libibtick.c $(LIB_HDRS)
	$(CC) $(LIB_CFLAGS) -fPIC -c -o $@ $<

$(LIB_SO): user/lib/libibtick.pic.o
	$(CC) -shared -Wl,-soname,libibtick.so.$(LIB_SOVER) $(LDFLAGS) -o $@ $<
	ln -sf libibtick.so.$(LIB_SOVER) user/lib/libibtick.so

$(LIB_A): user/lib/libibtick.o
	rm -f $@
	ar rcs $@ $<

# written at install time: it names the install's PREFIX/LIBDIR/INCDIR
PC_SED := sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	      -e 's|@INCDIR@|$(INCDIR)|' -e 's|@VERSION@|$(VERSION)|'

user/examples/%: user/examples/%.c $(LIB_A) $(LIB_HDRS)
	$(CC) $(UCFLAGS) -Iuser/lib $(LDFLAGS) -o $@ $< $(LIB_A)

# feed addresses from command-line words, through libibtick
ADDRARG := user/common/addrarg.c user/common/addrarg.h $(LIB_A) $(LIB_HDRS)

SYSFUZZ_SRCS := tests/fuzz/sysfuzz.c tests/fuzz/sysfuzz_state.c \
		tests/fuzz/sysfuzz_sock.c tests/fuzz/sysfuzz_mmap.c \
		tests/fuzz/sysfuzz_genl.c

tests/fuzz/sysfuzz: $(SYSFUZZ_SRCS) tests/fuzz/sysfuzz.h $(LIB_A) $(LIB_HDRS) include/uapi/linux/ibtick_netlink.h
	$(CC) $(UCFLAGS) -Iuser/lib $(LDFLAGS) -o $@ $(SYSFUZZ_SRCS) $(LIB_A)

tests/vm/failnth: tests/vm/failnth.c $(ADDRARG)
	$(CC) $(UCFLAGS) -Iuser/lib $(LDFLAGS) -o $@ $< user/common/addrarg.c $(LIB_A)

tests/vm/nlstress: tests/vm/nlstress.c include/uapi/linux/ibtick.h include/uapi/linux/ibtick_netlink.h
	$(CC) $(UCFLAGS) $(LDFLAGS) -o $@ $<

tests/vm/ringtest: tests/vm/ringtest.c $(ADDRARG)
	$(CC) $(UCFLAGS) -Iuser/lib $(LDFLAGS) -o $@ $< user/common/addrarg.c $(LIB_A) -lpthread

tests/vm/uffdsend: tests/vm/uffdsend.c include/uapi/linux/ibtick.h
	$(CC) $(UCFLAGS) $(LDFLAGS) -o $@ $< -lpthread

# plain AF_INET programs for ibtick-run: nothing of ibtick's in them
tests/vm/mcsend tests/vm/mcrecv: tests/vm/%: tests/vm/%.c tests/vm/mctick.h
	$(CC) $(CPPFLAGS) $(CFLAGS) -std=gnu11 -Wall -Wextra $(if $(WERROR),-Werror) -D_GNU_SOURCE $(LDFLAGS) -o $@ $< -lpthread

tests/vm/sockapi: tests/vm/sockapi.c tests/vm/vmcheck.h $(ADDRARG)
	$(CC) $(UCFLAGS) -Iuser/lib $(LDFLAGS) -o $@ $< user/common/addrarg.c $(LIB_A) -lm

tests/vm/arbtest: tests/vm/arbtest.c tests/vm/vmcheck.h $(ADDRARG)
	$(CC) $(UCFLAGS) -Iuser/lib $(LDFLAGS) -o $@ $< user/common/addrarg.c $(LIB_A)

tests/vm/multifeed: tests/vm/multifeed.c tests/vm/vmcheck.h $(ADDRARG)
	$(CC) $(UCFLAGS) -Iuser/lib $(LDFLAGS) -o $@ $< user/common/addrarg.c $(LIB_A)

# connected sockets (SOCK_SEQPACKET): both ends in threads or a forked child
tests/vm/conntest: tests/vm/conntest.c tests/vm/vmcheck.h $(ADDRARG)
	$(CC) $(UCFLAGS) -Iuser/lib $(LDFLAGS) -o $@ $< user/common/addrarg.c $(LIB_A) -lpthread

# the benchmark and market-data tools (user/bench): statistics, the
# synthetic stream, one reader interface over the four ways of reading a
# feed, numeric arguments
BENCH_CFLAGS := $(UCFLAGS) -Iuser/bench -Iuser/lib
TICKRD := user/bench/tickrd.c user/bench/tickrd.h user/bench/args.c user/bench/args.h

user/tools/ibtick-md: user/tools/ibtick-md.c user/bench/latstats.c user/bench/latstats.h user/bench/tickgen.c user/bench/tickgen.h $(TICKRD) $(LIB_A) $(LIB_HDRS)
	$(CC) $(BENCH_CFLAGS) $(LDFLAGS) -o $@ $< user/bench/latstats.c user/bench/tickgen.c user/bench/tickrd.c user/bench/args.c $(LIB_A) -lm

user/tools/ibtick-perf: user/tools/ibtick-perf.c user/bench/udppp.c user/bench/udppp.h user/bench/latstats.c user/bench/latstats.h user/bench/kcount.c user/bench/kcount.h user/bench/ibport.c user/bench/ibport.h $(TICKRD) $(LIB_A) $(LIB_HDRS)
	$(CC) $(BENCH_CFLAGS) $(LDFLAGS) -o $@ $< user/bench/latstats.c user/bench/kcount.c user/bench/ibport.c user/bench/tickrd.c user/bench/args.c user/bench/udppp.c $(LIB_A) -lm

user/tools/ibtick-gen: user/tools/ibtick-gen.c user/bench/tickgen.c user/bench/tickgen.h user/common/out.c user/common/out.h
	$(CC) $(BENCH_CFLAGS) $(LDFLAGS) -o $@ $< user/bench/tickgen.c user/common/out.c -lm

# the UDP <-> feed relay: its command line apart (unit-tested), the counters
# through the common printer
user/tools/ibtick-relay: user/tools/ibtick-relay.c user/common/relayarg.c user/common/relayarg.h user/common/out.c user/common/out.h $(ADDRARG)
	$(CC) $(UCFLAGS) -Iuser/lib $(LDFLAGS) -o $@ $< user/common/relayarg.c user/common/out.c user/common/addrarg.c $(LIB_A)

user/tools/%: user/tools/%.c $(ADDRARG)
	$(CC) $(UCFLAGS) -Iuser/lib $(LDFLAGS) -o $@ $< user/common/addrarg.c $(LIB_A) -lm

# dkms.conf: the version they print (IBTICK_VERSION) is read from it
user/ibtick/ibtick: $(CLI_SRCS) $(CLI_HDRS) dkms.conf
	@test -n "$(NL_LIBS)" || { echo "ibtick: libnl-genl-3.0 not found (apt-get install libnl-genl-3-dev pkg-config)"; exit 1; }
	$(CC) $(UCFLAGS) $(NL_CFLAGS) $(LDFLAGS) -o $@ $(CLI_SRCS) $(NL_LIBS)

tests/unit/unit: $(UNIT_SRCS) $(CLI_HDRS) $(wildcard user/bench/*.h) user/preload/runconf.h user/preload/preload.h $(LIB_A) tests/unit/unit.h
	$(CC) $(UCFLAGS) -DPL_MAX_DIRTY=4 -Itests/unit -Iuser/bench -Iuser/lib -Iuser/preload $(LDFLAGS) -o $@ $(UNIT_SRCS) $(LIB_A) -lpthread -lm

unit: tests/unit/unit
	tests/unit/unit

kunit:
	scripts/kunit.sh

check:
	WERROR=1 scripts/check.sh

# Installation.  Every path follows PREFIX (default /usr/local) and is
# staged under DESTDIR; the module goes to /lib/modules/KVER/updates/, where
# KVER is the release of the kernel tree in KDIR (its utsrelease.h, which is
# what the module's vermagic names; Debian's headers packages answer
# `make kernelrelease` with the upstream version instead).
#
#   make install          install-module + install-user
#   make install-module   ibtick.ko + depmod (no depmod under DESTDIR)
#   make install-user     everything else: for hosts that get the module
#                         from DKMS (README, "On a real host")
#   make uninstall        removes what install put there, except a
#                         modprobe.d file the admin edited
#
# Headers go to INCDIR/ibtick (INCDIR = PREFIX/include): libibtick.h and the
# uapi headers as linux/ibtick.h, linux/ibtick_netlink.h.  Programs include
# <libibtick.h> and <linux/ibtick.h> and compile with
# `pkg-config --cflags libibtick` (-I$(INCDIR)/ibtick).  Not
# INCDIR/linux: that directory is the kernel's uapi namespace, owned by
# linux-libc-dev, where an out-of-tree module's headers do not belong.
KVER ?= $(or $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
		$(KDIR)/include/generated/utsrelease.h 2>/dev/null),\
	     $(shell $(MAKE) -s --no-print-directory -C $(KDIR) kernelrelease 2>/dev/null))
MODDIR     ?= /lib/modules/$(KVER)/updates
SYSCONFDIR ?= /etc
DATADIR    ?= $(PREFIX)/share
COMPDIR    ?= $(DATADIR)/bash-completion/completions
# systemd and systemd-modules-load look in /usr/local/lib too; a
# distribution package sets UNITDIR=/lib/systemd/system
UNITDIR    ?= $(PREFIX)/lib/systemd/system
MODLOADDIR ?= $(PREFIX)/lib/modules-load.d
PKGCONFDIR ?= $(LIBDIR)/pkgconfig
# the Wireshark dissector: Wireshark's global Lua plugin directory is
# LIBDIR/wireshark/plugins of its own install (Debian: PREFIX=/usr,
# LIBDIR=/usr/lib/<multiarch>, as debian/rules sets them; `tshark -G
# folders` names it).  Under another PREFIX, tshark loads it with
# -X lua_script:PATH, or set WSLUADIR to that directory.
WSLUADIR   ?= $(LIBDIR)/wireshark/plugins
HDRDIR     := $(INCDIR)/ibtick

INST_BIN  := user/ibtick/ibtick $(TOOLS) $(RUN)
# the tools scripts/ibtick-completion.bash completes (links to it, named
# for bash-completion's on-demand loading)
COMP_TOOLS := ibtick-pub ibtick-sub ibtick-gen ibtick-md ibtick-run ibtick-perf ibtick-relay
INST_MAN1 := $(wildcard user/man/*.1)
INST_MAN3 := $(wildcard user/man/*.3)
INST_MAN7 := $(wildcard user/man/*.7)
INST_MAN8 := $(wildcard user/man/*.8)

.PHONY: install-module install-user uninstall uninstall-module uninstall-user

install: install-module install-user

install-module: module
	@test -n "$(KVER)" || { echo "ibtick: cannot tell the release of $(KDIR) (set KVER=)"; exit 1; }
	@! test -e $(DESTDIR)/lib/modules/$(KVER)/updates/dkms/ibtick.ko || \
		{ echo "ibtick: DKMS has installed ibtick for $(KVER): use make install-user, or dkms remove ibtick first"; exit 1; }
	install -D -m 0644 kmod/ibtick.ko $(DESTDIR)$(MODDIR)/ibtick.ko
	$(if $(DESTDIR),@echo "ibtick: staged in DESTDIR; run depmod -a $(KVER) on the target",depmod -a $(KVER))

install-user: user
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
		$(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(HDRDIR)/linux \
		$(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFDIR) $(DESTDIR)$(COMPDIR) \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(MODLOADDIR) $(DESTDIR)$(PKGLIBDIR) \
		$(DESTDIR)$(WSLUADIR)
	install -m 0755 $(INST_BIN) $(DESTDIR)$(BINDIR)/
	install -m 0644 $(PRELOAD_SO) $(DESTDIR)$(PKGLIBDIR)/libibtick-preload.so
	install -m 0644 $(INST_MAN1) $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(INST_MAN3) $(DESTDIR)$(MANDIR)/man3/
	install -m 0644 $(INST_MAN7) $(DESTDIR)$(MANDIR)/man7/
	install -m 0644 $(INST_MAN8) $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 user/lib/libibtick.h $(DESTDIR)$(HDRDIR)/libibtick.h
	install -m 0644 include/uapi/linux/ibtick.h include/uapi/linux/ibtick_netlink.h \
		$(DESTDIR)$(HDRDIR)/linux/
	install -m 0755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/libibtick.so.$(LIB_SOVER)
	ln -sf libibtick.so.$(LIB_SOVER) $(DESTDIR)$(LIBDIR)/libibtick.so
	install -m 0644 $(LIB_A) $(DESTDIR)$(LIBDIR)/libibtick.a
	$(PC_SED) user/lib/libibtick.pc.in > $(DESTDIR)$(PKGCONFDIR)/libibtick.pc
	install -m 0644 scripts/ibtick-completion.bash $(DESTDIR)$(COMPDIR)/ibtick
	for t in $(COMP_TOOLS); do ln -sf ibtick $(DESTDIR)$(COMPDIR)/$$t; done
	sed 's|/usr/local/bin/ibtick|$(BINDIR)/ibtick|' scripts/ibtick-restore.service \
		> $(DESTDIR)$(UNITDIR)/ibtick-restore.service
	sed 's|/usr/local/bin/ibtick-relay|$(BINDIR)/ibtick-relay|' scripts/ibtick-relay@.service \
		> $(DESTDIR)$(UNITDIR)/ibtick-relay@.service
	install -m 0644 scripts/ibtick.modules-load.conf $(DESTDIR)$(MODLOADDIR)/ibtick.conf
	install -m 0644 user/wireshark/ibtick.lua $(DESTDIR)$(WSLUADIR)/ibtick.lua
	@g=$$(tshark -G folders 2>/dev/null | sed -n 's/^Global Lua Plugins:[[:space:]]*//p'); \
	if test -z "$(DESTDIR)" && test -n "$$g" && test "$$g" != "$(WSLUADIR)"; then \
		echo "ibtick: this tshark loads Lua plugins from $$g, not $(WSLUADIR):"; \
		echo "ibtick:   use tshark -X lua_script:$(WSLUADIR)/ibtick.lua, or WSLUADIR=$$g"; \
	fi
	@if test -e $(DESTDIR)$(SYSCONFDIR)/modprobe.d/ibtick.conf; then \
		echo "ibtick: keeping $(DESTDIR)$(SYSCONFDIR)/modprobe.d/ibtick.conf"; \
	else \
		echo "install -D -m 0644 scripts/ibtick.modprobe.conf $(DESTDIR)$(SYSCONFDIR)/modprobe.d/ibtick.conf"; \
		install -D -m 0644 scripts/ibtick.modprobe.conf $(DESTDIR)$(SYSCONFDIR)/modprobe.d/ibtick.conf; \
	fi
	$(if $(DESTDIR),,-ldconfig)

# The directories install-user creates for ibtick alone (its headers, its
# private library directory) and the Wireshark plugin directory with its
# parent, which exist only to hold ibtick.lua where no Wireshark is
# installed: removed when empty.  The shared ones (bin, man, pkgconfig,
# systemd, ...) stay: they are the hierarchy's, not ibtick's.  Deepest
# first; a directory something else still uses is left alone.
UNINSTALL_DIRS := $(HDRDIR)/linux $(HDRDIR) $(PKGLIBDIR) $(WSLUADIR) \
	$(if $(filter %/wireshark/plugins,$(WSLUADIR)),$(patsubst %/plugins,%,$(WSLUADIR)))
define UNINSTALL_RMDIRS
	for d in $(addprefix $(DESTDIR),$(UNINSTALL_DIRS)); do \
		if test -d $$d; then rmdir --ignore-fail-on-non-empty $$d; fi; \
	done
endef

uninstall: uninstall-module uninstall-user

uninstall-module:
	@test -n "$(KVER)" || { echo "ibtick: cannot tell the release of $(KDIR) (set KVER=)"; exit 1; }
	rm -f $(DESTDIR)$(MODDIR)/ibtick.ko
	$(if $(DESTDIR),,depmod -a $(KVER))

uninstall-user:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(INST_BIN)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(INST_MAN1)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(INST_MAN3)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man7/,$(notdir $(INST_MAN7)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(INST_MAN8)))
	rm -f $(DESTDIR)$(HDRDIR)/libibtick.h $(DESTDIR)$(HDRDIR)/linux/ibtick.h \
		$(DESTDIR)$(HDRDIR)/linux/ibtick_netlink.h
	rm -f $(DESTDIR)$(PKGLIBDIR)/libibtick-preload.so
	rm -f $(DESTDIR)$(LIBDIR)/libibtick.so.$(LIB_SOVER) $(DESTDIR)$(LIBDIR)/libibtick.so \
		$(DESTDIR)$(LIBDIR)/libibtick.a $(DESTDIR)$(PKGCONFDIR)/libibtick.pc
	rm -f $(DESTDIR)$(COMPDIR)/ibtick $(addprefix $(DESTDIR)$(COMPDIR)/,$(COMP_TOOLS)) \
		$(DESTDIR)$(UNITDIR)/ibtick-restore.service \
		$(DESTDIR)$(UNITDIR)/ibtick-relay@.service \
		$(DESTDIR)$(MODLOADDIR)/ibtick.conf \
		$(DESTDIR)$(WSLUADIR)/ibtick.lua
	$(UNINSTALL_RMDIRS)
	@f=$(DESTDIR)$(SYSCONFDIR)/modprobe.d/ibtick.conf; \
	if test -e $$f && ! cmp -s $$f scripts/ibtick.modprobe.conf; then \
		echo "ibtick: keeping $$f: it differs from the installed one"; \
	else \
		echo "rm -f $$f"; rm -f $$f; \
	fi
	$(if $(DESTDIR),,-ldconfig)

clean:
	-test -z "$(KDIR)" || $(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -f user/ibtick/ibtick tests/unit/unit $(TEST_PROGS) $(TOOLS) \
		$(EXAMPLES) user/lib/*.o user/lib/*.a user/lib/libibtick.so* \
		$(RUN) $(PRELOAD_SO) user/preload/libpath.h
	rm -rf .check
