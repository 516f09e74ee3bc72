#!/bin/bash
#
# vm-run.sh - run a command inside a throw-away QEMU (TCG) guest that boots
# the stock Debian kernel, shares the host root read-only and has two
# Soft-RoCE devices (rxe0 on veth0 10.99.0.1, rxe1 on veth1 10.99.0.2).
#
# usage: scripts/vm-run.sh [-m MEM_MB] [-t TIMEOUT_S] [-k KVER] [-o RESULTS_DIR]
#                          [-T TOPOLOGY] -- CMD [ARGS...]
#
#   -m MEM_MB       guest memory (default 2048)
#   -t TIMEOUT_S    wall-clock limit for the whole run incl. boot (default 600)
#   -k KVER         guest kernel (default: see scripts/vm-kernel.sh)
#   -o RESULTS_DIR  where rc, dmesg.txt, tainted, console.log and output.log
#                   go (default: a new ${TMPDIR:-/tmp}/ibtick-vm.XXXXXX); it is
#                   mounted read-write at the same path in the guest
#   -T TOPOLOGY     single (default): one guest of 2 vCPUs, both rxe devices
#                   in it on a veth pair; pair: two guests of 1 vCPU each,
#                   one rxe each on a virtio NIC (node 0: rxe0 10.99.0.1,
#                   node 1: rxe1 10.99.0.2), the NICs joined through a QEMU
#                   UDP socket on the host's loopback - publisher and reader
#                   in different kernels, as on two hosts.  CMD runs in both,
#                   with IBTICK_NODE (0, 1) and IBTICK_SHARED (RESULTS, which
#                   both see; each guest's own results are RESULTS/vmNODE)
#
# CMD runs as root in the repo root with IBTICK_GUEST=1, KVER and RESULTS
# set (and the suites' variables in PASS_ENV, when set here); its output is shown
# live.  Exit status: 0 pass, 1 fail (CMD failed or did not finish, the
# kernel logged BUG/WARNING/Oops/KASAN/lockdep/Call Trace/kmemleak, or it
# is tainted with flags other than O and E), 2 usage or setup error.
#
# The guest sees the host root read-only (so CMD must not live in the
# host's /tmp, /run or /var/tmp: those are fresh tmpfs in the guest).
# Writable: those tmpfs, RESULTS, and tmpfs-backed overlays on
# /lib/modules (KVER = the stock image's modules), /var/lib/dkms and
# /usr/src, enough for dkms add/build/install + modprobe.
#
# Results dir: rc, dmesg.txt, tainted, timing (written by the guest),
# output.log (ttyS1: CMD output), console.log (ttyS0: kernel console),
# qemu.log.  Environment: IBTICK_CACHE (see lib-common.sh),
# IBTICK_VM_MODULES=full (all modules in the guest, not the subset),
# IBTICK_VM_APPEND (more kernel command line), IBTICK_VM_QEMU_ARGS (more
# QEMU arguments, split at blanks: e.g. a TCG plugin, bench/insn-count.sh).
set -euo pipefail

IBTICK_PROG=vm-run
# shellcheck source-path=SCRIPTDIR source=lib-common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib-common.sh"

# Kernel log lines that fail a run, and lines that look alike but are benign.
DMESG_BAD='BUG:|WARNING:|Oops|KASAN|possible circular locking|inconsistent lock state|lockdep|Call Trace|kmemleak'
DMESG_BENIGN='kmemleak: Kernel memory leak detector initialized|kmemleak: Automatic memory scanning thread started|RCU lockdep checking is enabled|kasan: KernelAddressSanitizer initialized'
# What tests write to /dev/kmsg around deliberate allocation failures.
MARK_BEGIN='ibtick-test: expected allocation failures begin'
MARK_END='ibtick-test: expected allocation failures end'
# Taint bits that are expected: O (out-of-tree module) and E (unsigned).
TAINT_OK=$((4096 | 8192))
TAINT_LETTERS=PFSRMBUDAWCIOELKXTN   # bit 0 = P, bit 1 = F, ...

# taint_letters VALUE: e.g. 4608 -> "W O".
taint_letters() {
	local v=$1 i out=""
	for ((i = 0; i < ${#TAINT_LETTERS}; i++)); do
		((v & (1 << i))) && out+="${TAINT_LETTERS:i:1} "
	done
	printf '%s' "${out% }"
}

usage() {
	sed -n '/^# usage:/,/^[^#]/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}" >&2
	exit "${1:-2}"
}

mem=2048
tmo=600
kver=""
results=""
topology=single
while getopts "m:t:k:o:T:h" opt; do
	case $opt in
	m) mem=$OPTARG ;;
	t) tmo=$OPTARG ;;
	k) kver=$OPTARG ;;
	o) results=$OPTARG ;;
	T) topology=$OPTARG ;;
	h) usage 0 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
(($# > 0)) || usage
[[ $mem =~ ^[0-9]+$ && $mem -ge 256 ]] || die "-m wants a size in MB (>= 256)"
[[ $tmo =~ ^[0-9]+$ && $tmo -ge 10 ]] || die "-t wants seconds (>= 10)"
KNOWN_TOPOLOGIES=(single pair)   # each has topology_<name> below
[[ " ${KNOWN_TOPOLOGIES[*]} " == *" $topology "* ]] ||
	die "unknown topology '$topology' (known: ${KNOWN_TOPOLOGIES[*]})"

command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (apt-get install qemu-system-x86)"
[[ -n $kver ]] || kver=$(ibtick_default_kver)
ibtick_prepare_initramfs "$kver"          # also unpacks the image
ibtick_prepare_guest_modules "$kver"

if [[ -n $results ]]; then
	mkdir -p "$results"
	results=$(cd "$results" && pwd -P)
else
	results=$(mktemp -d "${TMPDIR:-/tmp}/ibtick-vm.XXXXXX")
fi
# Paths travel on the kernel command line, which splits at blanks.
for p in "$results" "$IBTICK_REPO_DIR" "$IBTICK_IMG"; do
	[[ $p != *[[:space:]]* ]] || die "path with blanks not supported: '$p'"
done

# qemu -option values: a comma is written as ",,".
qesc() { printf '%s' "${1//,/,,}"; }

# ------------------------------------------------------------------ guests

GUEST_PIDS=()    # pids of the timeout(1) wrappers around each qemu
GUEST_DIRS=()    # results dir of each guest

# start_guest DIR NODE [QEMU_ARGS...]: boot one guest in the background;
# its results go to DIR; QEMU_ARGS add devices (network backends).
start_guest() {
	local dir=$1 node=$2
	shift 2
	local f
	for f in rc dmesg.txt tainted timing setup-error console.log output.log; do
		rm -f "$dir/$f"
	done
	: >"$dir/output.log"
	write_cmd_file "$dir/.vm-cmd"

	# Emulated CPUs can stall for a while when the host is busy: give the
	# RCU stall and soft-lockup detectors more slack than on hardware.
	local append="console=ttyS0 panic=-1 mitigations=off"
	append+=" rcupdate.rcu_cpu_stall_timeout=60 watchdog_thresh=30"
	append+=" IBTICK_INIT=$IBTICK_SCRIPTS_DIR/vm-guest-init.sh"
	append+=" IBTICK_RESULTS=$dir IBTICK_TOPOLOGY=$topology IBTICK_NODE=$node"
	append+="${shared:+ IBTICK_SHARED=$shared}"
	append+=" IBTICK_REPO=$IBTICK_REPO_DIR"
	append+=" IBTICK_MODTREE=$IBTICK_GUEST_MODTREE"
	append+="${IBTICK_VM_APPEND:+ $IBTICK_VM_APPEND}"

	local -a qemu=(
		qemu-system-x86_64
		-name "ibtick-vm$node"
		-machine pc -accel "tcg,thread=multi" -smp "$smp" -m "$mem"
		-nographic -no-reboot -monitor none -parallel none
		-kernel "$(qesc "$IBTICK_KERNEL")" -initrd "$(qesc "$IBTICK_INITRD")"
		-append "$append"
		-serial "file:$(qesc "$dir/console.log")"
		-serial "file:$(qesc "$dir/output.log")"
		-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
		-virtfs "local,path=$(qesc "$IBTICK_IMG"),mount_tag=kimg,security_model=none,readonly=on"
		-virtfs "local,path=$(qesc "$dir"),mount_tag=results,security_model=none"
		-virtfs "local,path=$(qesc "$IBTICK_REPO_DIR"),mount_tag=repo,security_model=none,readonly=on,multidevs=remap"
		"$@"
	)
	local -a extra=()
	read -ra extra <<<"${IBTICK_VM_QEMU_ARGS:-}"
	qemu+=("${extra[@]}")
	timeout -k 10 "$tmo" "${qemu[@]}" </dev/null >"$dir/qemu.log" 2>&1 &
	GUEST_PIDS+=($!)
	GUEST_DIRS+=("$dir")
}

# Stop the command inside the guest a bit before the host pulls the plug,
# so that dmesg and rc still get saved.
GUEST_TIMEOUT=0
((tmo <= 60)) || GUEST_TIMEOUT=$((tmo - 30))

# What the test suites read from the environment, passed to the guest when
# set here (so that `TOPICS=ctl scripts/vm-run.sh -- tests/vm/run.sh` works).
PASS_ENV="TESTS TOPICS V EACH IBTICK_SLOW SEEDS SEED TICKS CYCLES FUZZ_OPS
FUZZ_TIMEOUT FAULT_ALL SLAB_KB_PER_CYCLE N CONN_MSGS"

# The command, its cwd and the pass-through environment, for the guest.
write_cmd_file() {
	{
		printf 'IBTICK_CMD=('
		printf ' %q' "${CMD[@]}"
		printf ' )\n'
		printf 'IBTICK_CWD=%q\n' "$IBTICK_REPO_DIR"
		printf 'IBTICK_CMD_TIMEOUT=%q\n' "$GUEST_TIMEOUT"
		local v
		for v in $PASS_ENV; do
			[[ -z ${!v+x} ]] || printf 'export %s=%q\n' "$v" "${!v}"
		done
	} >"$1"
}

smp=2        # vCPUs per guest
shared=""    # a results dir every guest mounts (IBTICK_SHARED), if any

# Topology "single": one guest, no NIC; both rxe devices live in it.
topology_single() {
	start_guest "$results" 0 -nic none
}

# free_udp_ports N: N UDP ports free on the host's loopback now.
free_udp_ports() {
	python3 - "$1" <<'PY'
import socket, sys
socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(int(sys.argv[1]))]
for s in socks:
    s.bind(('127.0.0.1', 0))
print(' '.join(str(s.getsockname()[1]) for s in socks))
PY
}

# Topology "pair": two guests of 1 vCPU, each NIC a UDP socket on the
# host's loopback sending to the other's: a cable between two hosts.
# Each guest's results in RESULTS/vm0, vm1; RESULTS itself is shared.
topology_pair() {
	local ports node
	read -r -a ports <<<"$(free_udp_ports 2)"
	smp=1
	shared=$results
	# a results dir used before must not hold the handshakes of that run
	rm -rf "$results/sync"
	for node in 0 1; do
		mkdir -p "$results/vm$node"
		start_guest "$results/vm$node" "$node" \
			-netdev "socket,id=n0,udp=127.0.0.1:${ports[1 - node]},localaddr=127.0.0.1:${ports[node]}" \
			-device "virtio-net-pci,netdev=n0,mac=52:54:00:1b:71:0$((node + 1))" \
			-virtfs "local,path=$(qesc "$results"),mount_tag=shared,security_model=none"
	done
}
# Everything below works on the GUEST_PIDS / GUEST_DIRS lists.

TAIL_PID=""
SENTINEL_PID=""
# shellcheck disable=SC2317 # reached through the trap
stop_all() {
	local p
	for p in "${GUEST_PIDS[@]}" "$TAIL_PID" "$SENTINEL_PID"; do
		[[ -z $p ]] || kill "$p" 2>/dev/null || true
	done
}
trap 'msg "interrupted"; stop_all; exit 2' INT TERM HUP

# check_guest DIR STATUS: verdict for one guest; prints why it failed.
check_guest() {
	local dir=$1 qstatus=$2 ok=0 rc tainted log bad

	if ((qstatus == 124 || qstatus == 137)); then
		msg "FAIL: timeout after ${tmo}s, qemu killed"
		ok=1
	elif ((qstatus != 0)); then
		msg "FAIL: qemu exited with status $qstatus:"
		sed 's/^/  /' "$dir/qemu.log" >&2
		ok=1
	fi

	if [[ -f $dir/rc ]]; then
		rc=$(<"$dir/rc")
		if [[ $rc == 124 ]] && ((GUEST_TIMEOUT > 0)); then
			msg "FAIL: command timed out in the guest after ${GUEST_TIMEOUT}s"
			ok=1
		elif [[ $rc != 0 ]]; then
			msg "FAIL: command exited with status $rc"
			ok=1
		fi
	else
		if [[ -f $dir/setup-error ]]; then
			msg "FAIL: $(<"$dir/setup-error")"
		else
			msg "FAIL: no exit status from the guest (results/rc missing)"
		fi
		ok=1
	fi

	# dmesg from the guest; after a hang only the serial console is left.
	log=$dir/dmesg.txt
	[[ -s $log ]] || log=$dir/console.log
	if [[ -f $log ]]; then
		# Between the markers a test writes around injected allocation
		# failures, the kernel's own allocation-failure reports (a
		# message, a stack dump, the memory summary) and kmemleak's
		# "cannot allocate" are expected: their stack lines are not
		# findings there (a frame can name lockdep_*); report headers
		# (BUG:, WARNING:, KASAN, lockdep's) still are.
		bad=$(awk -v b="$MARK_BEGIN" -v e="$MARK_END" '
			index($0, b) { r = 1 } index($0, e) { r = 0 }
			!(r && (/Call Trace/ || /\+0x[0-9a-f]+\/0x[0-9a-f]+/ ||
				/kmemleak: Cannot allocate/)) { print NR ":" $0 }' "$log" |
			grep -E "$DMESG_BAD" | grep -vE "$DMESG_BENIGN" || true)
		if [[ -n $bad ]]; then
			msg "FAIL: kernel log reports problems ($(basename "$log")):"
			printf '%s\n' "$bad" | head -n 40 | sed 's/^/  /' >&2
			local first=${bad%%:*}
			msg "context of the first report:"
			sed -n "$((first > 3 ? first - 3 : 1)),$((first + 30))p" "$log" | sed 's/^/  | /' >&2
			ok=1
		fi
	fi

	if [[ -f $dir/tainted ]]; then
		tainted=$(<"$dir/tainted")
		if [[ ! $tainted =~ ^[0-9]+$ ]]; then
			msg "FAIL: unreadable taint value '$tainted'"
			ok=1
		elif ((tainted & ~TAINT_OK)); then
			msg "FAIL: kernel tainted $tainted ($(taint_letters "$tainted")); only O and E are expected"
			ok=1
		fi
	fi

	if ((ok)) && [[ ! -f $dir/rc ]]; then
		msg "last lines of the kernel console:"
		tail -n 25 "$dir/console.log" 2>/dev/null | sed 's/^/  | /' >&2
	fi
	return "$ok"
}

# ------------------------------------------------------------------- main

CMD=("$@")
t0=$(date +%s.%N)
msg "kernel $kver, topology $topology, ${mem} MB, timeout ${tmo}s, results in $results"
case $topology in
single) topology_single ;;
pair) topology_pair ;;
esac

# Show the guests' output live.  tail follows until the sentinel dies
# (after the last guest) and then drains what is left.
sleep 2147483647 &
SENTINEL_PID=$!
tail_opts=(-n +1 -F --pid="$SENTINEL_PID")
((${#GUEST_DIRS[@]} > 1)) || tail_opts+=(-q)
tail "${tail_opts[@]}" "${GUEST_DIRS[@]/%//output.log}" 2>/dev/null &
TAIL_PID=$!

status=0
statuses=()
for i in "${!GUEST_PIDS[@]}"; do
	s=0
	wait "${GUEST_PIDS[i]}" || s=$?
	statuses+=("$s")
done
kill "$SENTINEL_PID" 2>/dev/null || true
wait "$TAIL_PID" 2>/dev/null || true
TAIL_PID=""
SENTINEL_PID=""
t1=$(date +%s.%N)

for i in "${!GUEST_DIRS[@]}"; do
	dir=${GUEST_DIRS[i]}
	check_guest "$dir" "${statuses[i]}" || status=1
	if [[ -f $dir/timing ]]; then
		read -r _ cstart <"$dir/timing" || true
		cend=$(sed -n 's/^cmd_end //p' "$dir/timing")
		[[ -z $cstart ]] || msg "guest $i: boot to command ${cstart}s (guest uptime)${cend:+, command $(awk -v a="$cstart" -v b="$cend" 'BEGIN { printf "%.1f", b - a }')s}"
	fi
done
total=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
if ((status == 0)); then
	msg "PASS (total ${total}s) results: $results"
else
	msg "FAIL (total ${total}s) results: $results"
fi
exit "$status"
