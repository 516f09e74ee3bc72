# shellcheck shell=bash
#
# tests/vm/pair-sync.sh - sourced by tests/vm/pair.sh and the two-guest
# bench scripts (bench/guest-pair.sh, hop-split.sh, insn-count.sh -p).
# Two guests (scripts/vm-run.sh -T pair): a handshake through the dir both
# mount (IBTICK_SHARED).  pair_flag NAME tells the other node; pair_wait
# NAME [SECS] waits for its flag (default 600 s), status 1 when it never
# came.  pair_echo_up ERR PID waits (up to 120 s) for the ibtick-perf lat -e
# running as PID, its stderr in ERR, to say it listens; status 1, with what
# it said, when it never did.  pair_echo_serve TAG ERR CMD... is node 0's
# side of one step: CMD (an ibtick-perf lat -e) in the background, its
# stderr in ERR; once it listens, ready-TAG to the other node; then wait for
# its done-TAG (up to 900 s) and stop CMD.
pair_flag() { : >"$IBTICK_SHARED/sync/$1"; }
pair_wait() {
	local i
	for ((i = 0; i < ${2:-600} * 10; i++)); do
		[[ -e $IBTICK_SHARED/sync/$1 ]] && return 0
		sleep 0.1
	done
	echo "  node ${IBTICK_NODE:-?}: no '$1' from the other node"
	return 1
}
pair_echo_up() {
	local i
	for ((i = 0; i < 1200; i++)); do
		grep -qs "echo ready" "$1" && return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	grep -qs "echo ready" "$1" && return 0
	echo "  node ${IBTICK_NODE:-?}: the echo did not start:"
	cat "$1"
	return 1
}
pair_echo_serve() {
	local tag=$1 err=$2 e
	shift 2
	"$@" 2>"$err" &
	e=$!
	pair_echo_up "$err" "$e" || true
	pair_flag "ready-$tag"
	pair_wait "done-$tag" 900 || true
	kill "$e" 2>/dev/null || true
	wait "$e" 2>/dev/null || true
}
