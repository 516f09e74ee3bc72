#!/bin/bash
#
# vm-guest-init.sh - PID 1 of an ibtick test guest (started by vm-run.sh).
#
# The initramfs mounts the host root read-only over 9p and execs this
# script chrooted into it.  It sets up a usable test system, runs the
# command that vm-run.sh left in $RESULTS/.vm-cmd, stores rc, dmesg and
# the taint flags in $RESULTS and powers the guest off.
#
# Kernel command line parameters (arrive as environment variables):
#   IBTICK_RESULTS   host path of the results dir; mounted at the same path
#   IBTICK_TOPOLOGY  network topology; selects net_setup_<topology>
#   IBTICK_NODE      index of this guest within the topology (0 for single)
#   IBTICK_SHARED    (pair) host path of a dir every guest mounts, at the
#                    same path; IBTICK_RESULTS is inside it
#   IBTICK_MODTREE   module tree to use, relative to the "kimg" share
#
# Serial ports: ttyS0 = kernel console (results/console.log on the host),
# ttyS1 = this script's and the command's output (shown live by vm-run.sh).
set -euo pipefail

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LC_ALL=C.UTF-8 TERM=dumb
umask 022

RESULTS=${IBTICK_RESULTS:-}
REPO=${IBTICK_REPO:-}
TOPOLOGY=${IBTICK_TOPOLOGY:-single}
NODE=${IBTICK_NODE:-0}
MODTREE=${IBTICK_MODTREE:-lib/modules}
KVER=$(uname -r)
RUN=/run/ibtick              # guest-private scratch (tmpfs)
CMD_RAN=0
RESULTS_OK=0

uptime_s() {
	local up _
	read -r up _ </proc/uptime && printf '%s' "$up"
}

log() { printf 'vm: [%6ss] %s\n' "$(uptime_s)" "$*"; }

# ---------------------------------------------------------------- teardown

power_off() {
	sync
	if [[ -x /bin/busybox ]]; then
		/bin/busybox poweroff -f
	fi
	echo o >/proc/sysrq-trigger
	sleep 60
}

# EXIT trap: always leave rc/dmesg/tainted behind (when the results share
# is mounted) and power off; PID 1 must never simply exit.
finish() {
	local rc=$?
	set +e
	trap - EXIT
	if ((!CMD_RAN)); then
		log "guest setup failed (status $rc) - command not run"
	fi
	if ((RESULTS_OK)); then
		if ((!CMD_RAN)); then
			echo "guest setup failed (status $rc), see output.log" >"$RESULTS/setup-error"
		fi
		printf '%s\n' "$(</proc/sys/kernel/tainted)" >"$RESULTS/tainted"
		dmesg >"$RESULTS/dmesg.txt" 2>&1
		printf 'cmd_start %s\ncmd_end %s\n' "${T_CMD_START:-}" "${T_CMD_END:-}" >"$RESULTS/timing"
		# rc last: its presence tells the host the rest is complete.
		((CMD_RAN)) && echo "$CMD_RC" >"$RESULTS/rc"
		sync
	else
		echo "vm: results share not mounted, nothing saved" >/dev/console 2>/dev/null
	fi
	power_off
}
trap finish EXIT

# ------------------------------------------------------------- filesystems

# Every exec of a dynamically linked tool costs ~0.1 s under TCG; the
# setup below therefore prefers shell builtins and the static busybox
# (which the initramfs is built from, so it is present on the host).
BB=/bin/busybox
bb() { "$BB" "$@"; }
[[ -x $BB ]] || bb() { "$@"; }

mount_basics() {
	bb mount -t proc proc /proc
	bb mount -t sysfs sysfs /sys
	bb mount -t devtmpfs devtmpfs /dev
	bb mkdir -p /dev/pts /dev/shm
	bb mount -t devpts -o gid=5,mode=620,ptmxmode=000 devpts /dev/pts
	bb mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /dev/shm
	# What udev would add; bash's <(...) and dkms need /dev/fd.
	bb ln -sf /proc/self/fd /dev/fd
	bb ln -sf /proc/self/fd/0 /dev/stdin
	bb ln -sf /proc/self/fd/1 /dev/stdout
	bb ln -sf /proc/self/fd/2 /dev/stderr

	# From here on everything goes to the second serial port.
	exec </dev/null >/dev/ttyS1 2>&1
	bb stty -F /dev/ttyS1 raw -echo 2>/dev/null || true

	bb mount -t tmpfs -o mode=755,nosuid,nodev tmpfs /run
	bb mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /tmp
	bb mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /var/tmp
	# a checkout below one of those (a CI clone in /tmp) would now be
	# hidden: mount it again from its own read-only share
	case $REPO/ in
	/run/* | /tmp/* | /var/tmp/*)
		bb mkdir -p "$REPO"
		bb mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,ro repo "$REPO"
		;;
	esac
	bb mount -t debugfs debugfs /sys/kernel/debug
	bb mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || true
	bb mkdir -p "$RUN/kimg"
}

# Mount the host's results dir (9p tag "results") at the same path it has
# on the host.  Paths below /tmp, /run, ... are hidden by the tmpfs mounts
# above, so create the mount point there if needed.
mount_results() {
	[[ -n $RESULTS ]] || { log "IBTICK_RESULTS not set"; return 1; }
	[[ -d $RESULTS ]] || bb mkdir -p "$RESULTS"
	if [[ -n ${IBTICK_SHARED:-} ]]; then
		# the guests' common dir first: RESULTS (its vmNODE) is inside it
		[[ -d $IBTICK_SHARED ]] || bb mkdir -p "$IBTICK_SHARED"
		bb mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 shared "$IBTICK_SHARED"
	fi
	bb mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 results "$RESULTS"
	RESULTS_OK=1
}

# link_farm SRC DST DEPTH: mirror SRC in DST with symlinks; directories
# less than DEPTH levels down become real, writable directories.
link_farm() {
	local src=$1 dst=$2 depth=$3 e
	bb mkdir -p "$dst"
	for e in "$src"/* "$src"/.[!.]*; do
		[[ -e $e || -L $e ]] || continue
		if ((depth > 1)) && [[ -d $e && ! -L $e ]]; then
			link_farm "$e" "$dst/${e##*/}" $((depth - 1))
		else
			bb ln -sfn "$e" "$dst/${e##*/}"
		fi
	done
}

# make_writable DIR DEPTH LOWER...: make DIR writable with a tmpfs-backed
# overlay whose read-only layers are LOWER... (top first); DIR itself may
# be one of them.  Overlayfs takes 9p as a lower layer (tested on 6.1).
# Should that fail, DIR becomes a tmpfs with a symlink farm of the layers
# (real directories DEPTH levels deep): new files and files replaced by
# rename work, writes into deeper existing directories do not.
make_writable() {
	local dir=$1 depth=$2 lower base i
	shift 2
	base="$RUN/ovl/${dir//\//_}"
	bb mkdir -p "$base/upper" "$base/work"
	lower=$(IFS=:; printf '%s' "$*")
	if bb mount -t overlay overlay \
		-o "lowerdir=$lower,upperdir=$base/upper,workdir=$base/work" "$dir" 2>"$base/err"; then
		return 0
	fi
	log "overlay on $dir failed ($(<"$base/err")); using a tmpfs symlink farm"
	local -a layers=("$@")
	for i in "${!layers[@]}"; do
		bb mkdir -p "$base/lower$i"
		bb mount --bind "${layers[i]}" "$base/lower$i"
	done
	bb mount -t tmpfs -o mode=755 tmpfs "$dir"
	# Lowest layer first so that upper layers win.
	for ((i = ${#layers[@]} - 1; i >= 0; i--)); do
		link_farm "$base/lower$i" "$dir" "$depth"
	done
}

setup_writable_trees() {
	# The stock image's modules come in through their own 9p share
	# (tag "kimg" = $IBTICK_CACHE/img-KVER on the host), independent of
	# where the cache lives on the host.
	bb mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=512000,cache=loose kimg "$RUN/kimg"
	[[ -d $RUN/kimg/$MODTREE/$KVER ]] || { log "no $MODTREE/$KVER in the kimg share"; return 1; }
	# Host /lib/modules contributes KVER/build and KVER/source (from the
	# linux-headers package), which dkms needs.
	make_writable /lib/modules 2 "$RUN/kimg/$MODTREE" /lib/modules
	[[ -d /lib/modules/$KVER/kernel ]] || { log "/lib/modules/$KVER not populated"; return 1; }
	# dkms add/build/install write here.
	make_writable /var/lib/dkms 1 /var/lib/dkms
	make_writable /usr/src 1 /usr/src
	# Autoloading runs kernel.modprobe in this root (see the initramfs).
	[[ -x $(</proc/sys/kernel/modprobe) ]] || { log "kernel.modprobe not executable"; return 1; }
}

mount_configfs() {
	modprobe configfs
	bb mount -t configfs configfs /sys/kernel/config
}

# ----------------------------------------------------------------- network

# wait_rdma_links LINK...: wait (up to 20 s) until each link is ACTIVE.
wait_rdma_links() {
	local l out up end=$((SECONDS + 20))
	while :; do
		out=$(rdma link 2>&1) || true
		up=1
		for l in "$@"; do
			[[ $out == *"link $l/1 state ACTIVE"* ]] || up=0
		done
		((up)) && return 0
		if ((SECONDS >= end)); then
			log "rdma links not ACTIVE: $*"
			printf '%s\n' "$out"
			return 1
		fi
		sleep 0.2
	done
}

# sysctl_w NAME VALUE: set a sysctl without forking sysctl(8).
sysctl_w() { printf '%s\n' "$2" >"/proc/sys/${1//.//}"; }

# Let two addresses of the same host talk to each other through a veth
# pair: without this the kernel drops the packets as martians.
allow_local_traffic() {
	local dev
	for dev in all default "$@"; do
		sysctl_w "net.ipv4.conf.$dev.accept_local" 1
		sysctl_w "net.ipv4.conf.$dev.rp_filter" 0
	done
}

# A multicast route on each rxe netdev, as a host that takes market data on
# a NIC of its own is set up.  rxe looks up the route of every UD packet it
# sends; to a group with no route of its own (prefix /4 or longer) the
# kernel builds one per lookup and frees it through RCU: grace periods then
# run without end, and the RCU thread and ksoftirqd preempt spinning
# readers (on hardware the adapter builds the headers: no lookup at all).
# The metric orders the devices for sockets that name none.
mcast_route() { ip route add 224.0.0.0/4 dev "$1" metric "$2"; }

# Topology "single": one guest, veth0 <-> veth1, Soft-RoCE rxe0 on veth0
# (10.99.0.1) and rxe1 on veth1 (10.99.0.2).  No virtual NIC.
net_setup_single() {
	# rxe wants the "crc32" shash; crc32-pclmul (tried first by the
	# autoloader) finds no PCLMULQDQ on the emulated CPU.
	modprobe -a crc32_generic rdma_rxe ib_uverbs rdma_ucm ib_umad
	# veth is left to the module autoloader, which checks that it works.
	ip link add veth0 type veth peer name veth1 ||
		{ log "cannot create veth pair (module autoload broken?)"; return 1; }
	allow_local_traffic veth0 veth1
	ip -batch - <<-EOF
		addr add 10.99.0.1/24 dev veth0
		addr add 10.99.0.2/24 dev veth1
		link set veth0 up
		link set veth1 up
	EOF
	mcast_route veth0 100 && mcast_route veth1 101 || return 1
	rdma link add rxe0 type rxe netdev veth0
	rdma link add rxe1 type rxe netdev veth1
	wait_rdma_links rxe0 rxe1
}

# Topology "pair": this guest is node NODE of two, its virtio NIC cabled
# to the other's; Soft-RoCE rxeNODE on it, address 10.99.0.(NODE + 1)
# (node 0: rxe0 10.99.0.1, node 1: rxe1 10.99.0.2, as in "single").  The
# NIC keeps the kernel's name (eth0).  Up once the other node answers.
net_setup_pair() {
	local nic="" d i peer=10.99.0.$((2 - NODE))
	modprobe -a crc32_generic rdma_rxe ib_uverbs rdma_ucm ib_umad virtio_net
	for ((i = 0; i < 100 && !${#nic}; i++)); do
		for d in /sys/class/net/*; do
			[[ -e $d/device/driver && $(readlink "$d/device/driver") == */virtio_net ]] &&
				nic=${d##*/}
		done
		[[ -n $nic ]] || sleep 0.1
	done
	[[ -n $nic ]] || { log "no virtio NIC"; return 1; }
	ip addr add "10.99.0.$((NODE + 1))/24" dev "$nic"
	ip link set "$nic" up
	mcast_route "$nic" 100 || return 1
	rdma link add "rxe$NODE" type rxe netdev "$nic"
	wait_rdma_links "rxe$NODE"
	# the other guest boots at its own pace
	for ((i = 0; i < 120; i++)); do
		bb ping -c 1 -W 1 "$peer" >/dev/null 2>&1 && return 0
	done
	log "node $NODE: $peer does not answer on $nic"
	return 1
}

setup_network() {
	ip link set lo up
	printf 'ibtick-vm%s\n' "$NODE" >/proc/sys/kernel/hostname
	declare -F "net_setup_$TOPOLOGY" >/dev/null || { log "unknown topology '$TOPOLOGY'"; return 1; }
	"net_setup_$TOPOLOGY"
	log "rdma links:"
	rdma link | sed 's/^/vm:   /'
}

# --------------------------------------------------------------------- run

run_command() {
	local -a IBTICK_CMD=()
	local IBTICK_CWD=/ IBTICK_CMD_TIMEOUT=0
	# Written by vm-run.sh: IBTICK_CMD=(...), IBTICK_CWD, IBTICK_CMD_TIMEOUT
	# and exports of TESTS / V when they were set on the host.
	# shellcheck source=/dev/null
	. "$RESULTS/.vm-cmd"
	((${#IBTICK_CMD[@]})) || { log "no command given"; return 1; }

	export IBTICK_GUEST=1 KVER RESULTS
	export HOME=/root
	# the topology stays visible: IBTICK_TOPOLOGY, IBTICK_NODE, IBTICK_SHARED
	export IBTICK_TOPOLOGY=$TOPOLOGY IBTICK_NODE=$NODE
	unset IBTICK_RESULTS IBTICK_REPO IBTICK_INIT IBTICK_MODTREE
	cd "$IBTICK_CWD"

	T_CMD_START=$(uptime_s)
	log "setup done; running: ${IBTICK_CMD[*]}"
	CMD_RAN=1
	set +e
	if ((IBTICK_CMD_TIMEOUT > 0)); then
		timeout -k 10 "$IBTICK_CMD_TIMEOUT" "${IBTICK_CMD[@]}"
	else
		"${IBTICK_CMD[@]}"
	fi
	CMD_RC=$?
	set -e
	T_CMD_END=$(uptime_s)
	if ((CMD_RC == 124 && IBTICK_CMD_TIMEOUT > 0)); then
		log "command timed out after ${IBTICK_CMD_TIMEOUT}s"
	fi
	log "command exited with status $CMD_RC"
}

main() {
	mount_basics
	log "guest up, kernel $KVER, topology $TOPOLOGY, node $NODE"
	mount_results
	setup_writable_trees
	mount_configfs
	setup_network
	run_command
}

main "$@"
