# shellcheck shell=bash
#
# tests/vm/pair-sync.sh - sourced by tests/vm/pair.sh and bench/guest-pair.sh.
# Two guests (scripts/vm-run.sh -T pair): a handshake through the dir both
# mount (IBTICK_SHARED).  pair_flag NAME tells the other node; pair_wait
# NAME [SECS] waits for its flag (default 600 s), status 1 when it never
# came.
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
