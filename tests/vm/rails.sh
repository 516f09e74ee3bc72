# shellcheck shell=bash
# The second rail of the arbitrated feeds, for tests/vm/arb.sh and the
# bench (bench/guest.sh); sourced.  The rig's first pair is veth0 <-> veth1
# (rxe0, rxe1; scripts/vm-run.sh makes it); this adds veth2 <-> veth3
# (10.99.1.1, 10.99.1.2) with rxe2 and rxe3.  Rail A is then rxe0 (veth0)
# receiving what rxe1 (veth1) publishes, rail B rxe2 (veth2) receiving
# what rxe3 (veth3) publishes.

# rails_up: the second pair up, no qdisc on veth1..veth3; status 1 when a
# step failed.
rails_up() {
	local d i
	if ! ip link show veth2 >/dev/null 2>&1; then
		ip link add veth2 type veth peer name veth3 || return 1
		for d in veth2 veth3; do
			echo 1 >"/proc/sys/net/ipv4/conf/$d/accept_local"
			echo 0 >"/proc/sys/net/ipv4/conf/$d/rp_filter"
		done
		ip addr add 10.99.1.1/24 dev veth2
		ip addr add 10.99.1.2/24 dev veth3
	fi
	# both ends up first: a veth has no carrier while its peer is down
	ip link set veth2 up && ip link set veth3 up || return 1
	for i in 2 3; do
		tc qdisc del dev "veth$i" root 2>/dev/null || true
		rdma dev show "rxe$i" >/dev/null 2>&1 ||
			rdma link add "rxe$i" type rxe netdev "veth$i" || return 1
		rails_wait_active "rxe$i" || return 1
	done
	tc qdisc del dev veth1 root 2>/dev/null || true
	return 0
}

# rails_down: the second pair gone, veth1's qdisc too (what is not there
# is no failure: callers may run under set -e).
rails_down() {
	tc qdisc del dev veth1 root 2>/dev/null || true
	rdma link delete rxe2 2>/dev/null || true
	rdma link delete rxe3 2>/dev/null || true
	ip link del veth2 2>/dev/null || true
	return 0
}

# rails_wait_active DEV: until DEV's port 1 is ACTIVE (10 s, times SLOW).
rails_wait_active() {
	local i
	for ((i = 0; i < 50 * ${SLOW:-1}; i++)); do
		rdma link show "$1/1" 2>/dev/null | grep -q "state ACTIVE " && return 0
		sleep 0.2
	done
	echo "  $1/1 not ACTIVE: $(rdma link show "$1/1" 2>&1)"
	return 1
}
