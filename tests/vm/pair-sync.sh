# shellcheck shell=bash
#
# tests/vm/pair-sync.sh - sourced by tests/vm/pair.sh and the two-guest
# bench scripts (bench/guest-pair.sh, hop-split.sh, insn-count.sh -p,
# preload-control.sh).
# Two guests (scripts/vm-run.sh -T pair): a handshake through the dir both
# mount (IBTICK_SHARED).  pair_flag NAME tells the other node; pair_wait
# NAME [SECS] waits for its flag (default 600 s), status 1 when it never
# came.  pair_echo_up ERR PID waits (up to 120 s) for the ibtick-perf lat -e
# running as PID, its stderr in ERR, to say it listens; status 1, with what
# it said, when it never did.  pair_echo_serve TAG ERR CMD... is node 0's
# side of one step: CMD (an ibtick-perf lat -e) in the background, its
# stderr in ERR; once it listens, ready-TAG to the other node; then wait for
# its done-TAG (up to 900 s) and stop CMD.  The waits sleep with pair_nap
# SECS, which does not fork: node 0 waits while node 1 measures, and a
# fork+exec of sleep(1) ten times a second on the answering guest's only
# vCPU is what a benchmark must not have beside it.  pair_wait polls each
# 0.1 s for the first 2 s, then each 0.5 s (the flag is a stat over 9p);
# pair_echo_up, done before the other node measures, each 0.1 s with a
# grep.  The FIFO's descriptor is inherited by the commands the scripts
# start; nothing reads it or waits for its end.
pair_nap() {
	local f
	if [[ -z ${PAIR_NAP_FD:-} ]]; then
		# a FIFO this shell holds both ends of: read never gets data
		# nor EOF, only its timeout
		f=${TMPDIR:-/tmp}/pair-nap.$BASHPID
		{ mkfifo "$f" && exec {PAIR_NAP_FD}<>"$f"; } 2>/dev/null || PAIR_NAP_FD=none
		rm -f "$f"
	fi
	if [[ $PAIR_NAP_FD == none ]]; then	# no FIFO here: sleep(1) after all
		sleep "$1"
		return 0
	fi
	read -rt "$1" -u "$PAIR_NAP_FD" _ || true
}
pair_flag() { : >"$IBTICK_SHARED/sync/$1"; }
pair_wait() {
	# t counts tenths of a second
	local i t=0 end=$((${2:-600} * 10))
	for ((i = 0; t < end; i++)); do
		[[ -e $IBTICK_SHARED/sync/$1 ]] && return 0
		if ((i < 20)); then
			pair_nap 0.1
			((t += 1))
		else
			pair_nap 0.5
			((t += 5))
		fi
	done
	[[ -e $IBTICK_SHARED/sync/$1 ]] && return 0
	echo "  node ${IBTICK_NODE:-?}: no '$1' from the other node"
	return 1
}
pair_echo_up() {
	local i
	for ((i = 0; i < 1200; i++)); do
		grep -qs "echo ready" "$1" && return 0
		kill -0 "$2" 2>/dev/null || break
		pair_nap 0.1
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
