#!/usr/bin/env bash
# VM topic: the seeded syscall fuzzer (tests/fuzz/sysfuzz, see
# tests/fuzz/README.md) against the module on Soft-RoCE.  4 worker processes
# throw sockets, addresses, socket options, ring mappings, msghdrs and
# generic-netlink requests at ibtick on veth0 (rxe0).  It passes when
# sysfuzz exits 0 (no worker died, hung, or saw the kernel accept what
# ibtick.7 says it refuses), the module unloads once every fuzz process is
# gone (no socket, mapping or dump left holding it), and - on a kernel with
# kmemleak (the debug kernel) - no leak report is ibtick's.  vm-run.sh fails
# the run on any BUG/WARNING/KASAN/lockdep report in the kernel log.
#
#   SEED=7 FUZZ_OPS=20000 scripts/vm-run.sh -- tests/vm/fuzz.sh
#
# SEED (default 1) and FUZZ_OPS (100000) choose the run: the same two and
# 4 procs replay the same operations.  FUZZ_TIMEOUT (900 s) bounds it; the
# workers stop issuing operations at FUZZ_TIMEOUT - 240 s (a slow guest
# then runs fewer, and the log says how many) and a worker stuck 180 s in
# one operation fails the run with its kernel stack printed.
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/lib.sh
. tests/vm/lib.sh

FUZZ=tests/fuzz/sysfuzz
SEED=${SEED:-1}
FUZZ_OPS=${FUZZ_OPS:-100000}
FUZZ_PROCS=4
FUZZ_TIMEOUT=${FUZZ_TIMEOUT:-900}
KML=/sys/kernel/debug/kmemleak
ALL_TESTS="syscall_fuzz"

require_guest
[[ -x $FUZZ ]] || skip "$FUZZ is not built (make tests/fuzz/sysfuzz)"

cleanup() {
	rmmod ibtick 2>/dev/null
	true
}
trap cleanup EXIT

# ibt_text_range: "LO HI" of ibtick's code from /proc/kallsyms, empty when
# the addresses are hidden.  Taken while loaded: after rmmod, kmemleak can
# only print the module's frames as bare addresses.
ibt_text_range() {
	awk '$NF == "[ibtick]" && $2 ~ /^[tT]$/ && $1 !~ /^0+$/ { print $1 }' /proc/kallsyms |
		sort | sed -n '1p;$p' | tr '\n' ' '
}

# kml_ours AFTER BEFORE [LO HI]: the kmemleak records in file AFTER that are
# ibtick's: they name ibtick or an ibt_ function, or a backtrace frame lies
# in [LO, HI + 64 KiB).  Records already in file BEFORE are marked so.
kml_ours() {
	python3 - "$@" <<'EOF'
import re, sys

after = open(sys.argv[1]).read()
try:
    before = open(sys.argv[2]).read()
except OSError:
    before = ""
lo = hi = 0
if len(sys.argv) > 4:
    lo, hi = int(sys.argv[3], 16), int(sys.argv[4], 16) + 0x10000
old = set(re.findall(r"unreferenced object (0x[0-9a-f]+)", before))
for rec in re.split(r"(?m)^(?=unreferenced object )", after):
    m = re.match(r"unreferenced object (0x[0-9a-f]+)", rec)
    if not m:
        continue
    ours = "ibtick" in rec or re.search(r"\bibt_", rec)
    if not ours and lo:
        trace = rec.split("backtrace:", 1)[1] if "backtrace:" in rec else ""
        ours = any(lo <= int(a, 16) < hi
                   for a in re.findall(r"\b(?:0x)?([0-9a-f]{16})\b", trace))
    if ours:
        if m.group(1) in old:
            sys.stdout.write("(already reported before the fuzz ran)\n")
        sys.stdout.write(rec)
EOF
}

syscall_fuzz() {
	local rc=0 st why="" out=${RESULTS:-/tmp}/fuzz left range ours i done_ops kml=""

	mkdir -p "$out"
	[[ -r $KML ]] && cat "$KML" >"$out/kmemleak.before" 2>/dev/null
	echo "  $FUZZ -s $SEED -n $FUZZ_OPS -p $FUZZ_PROCS -i veth0 (timeout ${FUZZ_TIMEOUT}s)"
	timeout -k 10 "$FUZZ_TIMEOUT" "$FUZZ" -s "$SEED" -n "$FUZZ_OPS" -p "$FUZZ_PROCS" \
		-i veth0 -t $((FUZZ_TIMEOUT > 480 ? FUZZ_TIMEOUT - 240 : FUZZ_TIMEOUT / 2)) -S 180 \
		2>&1 | tee "$out/sysfuzz.log" | sed 's/^/  /'
	st=${PIPESTATUS[0]}
	case $st in
	0) ;;
	124 | 137) rc=1 why="sysfuzz timed out after ${FUZZ_TIMEOUT}s" ;;
	2) rc=1 why="sysfuzz could not start (status 2)" ;;
	*) rc=1 why="sysfuzz failed (status $st): see the worker lines above" ;;
	esac
	done_ops=$(sed -n 's/^sysfuzz: seed [0-9]*: \([0-9]*\) ops by .*/\1/p' "$out/sysfuzz.log")

	# every fuzz process (workers, their fork children) is gone first
	left=$(pgrep -x sysfuzz | tr '\n' ' ')
	if [[ -n $left ]]; then
		echo "  sysfuzz processes still there: $left"
		for i in $left; do
			echo "  pid $i: $(tr '\0' ' ' </proc/"$i"/cmdline 2>/dev/null) wchan $(cat /proc/"$i"/wchan 2>/dev/null)"
			sed 's/^/  | /' /proc/"$i"/stack 2>/dev/null
		done
		# shellcheck disable=SC2086 # one pid per word
		kill -9 $left 2>/dev/null
		sleep 1
		((rc)) || { rc=1 why="sysfuzz processes outlived it"; }
	fi

	# no socket or mapping holds the module; socket frees and netlink dump
	# state may trail the processes by an RCU grace period: 10 s of retries
	range=$(ibt_text_range)
	for i in $(seq 50); do
		rmmod ibtick 2>/dev/null && break
		sleep 0.2
	done
	if [[ -d /sys/module/ibtick ]]; then
		echo "  rmmod ibtick still refused after 10 s: refcnt $(cat /sys/module/ibtick/refcnt 2>/dev/null)"
		grep '^ibtick ' /proc/modules | sed 's/^/  /'
		((rc)) || { rc=1 why="the module does not unload: a socket reference leaked"; }
	fi

	if [[ -w $KML ]]; then
		# an object is reported once it stayed unreferenced over two scans
		echo scan >"$KML"
		sleep 5
		echo scan >"$KML"
		cat "$KML" >"$out/kmemleak.after"
		# shellcheck disable=SC2086 # LO HI, or nothing
		ours=$(kml_ours "$out/kmemleak.after" "$out/kmemleak.before" $range)
		if [[ -n $ours ]]; then
			echo "  kmemleak reports objects of ibtick's:"
			printf '%s\n' "$ours" | sed 's/^/  | /'
			((rc)) || { rc=1 why="kmemleak: ibtick leaked"; }
		fi
		kml=", no kmemleak report of ibtick's"
	fi

	if [[ ! -d /sys/module/ibtick ]]; then
		insmod kmod/ibtick.ko || { ((rc)) || { rc=1 why="insmod after the fuzz failed"; }; }
	fi
	log_test "syscall fuzz: seed $SEED, $FUZZ_OPS ops (${done_ops:-?} done), $FUZZ_PROCS procs on veth0: kernel survives, module unloads$kml" \
		"$rc" "$why"
}

insmod kmod/ibtick.ko || { echo "insmod failed"; exit 1; }
run_tests
