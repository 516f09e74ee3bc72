#!/usr/bin/env bash
# VM topic: unmodified AF_INET multicast programs under ibtick-run
# (libibtick-preload.so).  tests/vm/mcsend and mcrecv include no ibtick
# header and link nothing of ours; the sender runs on rxe1 (veth1,
# 10.99.0.2), the receiver on rxe0 (veth0, 10.99.0.1).  Every count is read
# from a counter: the receiver's own (delivered, sequence gaps, the drop
# count SO_RXQ_OVFL reports), the library's log (per feed, at close), the
# feed's (a native ibtick-sub witness on the same feed: feed_rx), rxe's port
# counters and /proc/net/snmp.  msg_name must name the sender, 10.99.0.2
# (the module's IBTICK_CMSG_SOURCE, RoCEv2's IPv4-mapped GID).
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/lib.sh
. tests/vm/lib.sh

IBTICK=user/ibtick/ibtick
SUB=user/tools/ibtick-sub
RUN=user/preload/ibtick-run
RECV=tests/vm/mcrecv
SEND=tests/vm/mcsend
ALL_TESTS="read_modes rings_or_kernel churn_while_reading two_readers_one_socket lapped_reader_counts_loss several_groups_one_socket drop_membership
	several_sockets_one_group
	fork_exec_child_inherits source_filter unconfigured_groups_kernel_udp
	mixed_socket_drops_counted publisher_replies_kept publish_refused_clear_message o_async_told busy_poll_option busy_blocking_one busy_prefer_option busy_look_sleeper sockperf_smoke"
N=${N:-$(cnt 2000)}
R=${RESULTS:-/tmp}/preload
mkdir -p "$R"

require_guest
require_cmd python3 setpriv

# tally OUT N [LIBLOG]: mcrecv's OUT, every socket: delivered + drops ==
# N per group, what it found missing itself == drops, no duplicate; with
# LIBLOG, the library's per-feed counts at close agree with the program's.
# FROM= (if set): every group's last sender address.
tally() {
	python3 - "$@" <<'PY'
import os, re, sys
out, n = sys.argv[1], int(sys.argv[2])
lib = sys.argv[3] if len(sys.argv) > 3 else None
want_from = os.environ.get('FROM')
socks, bad = {}, []
for l in open(out):
    m = re.match(r'sock (\d+) (\S+) delivered (\d+) gaps (\d+) dups (\d+) tail (\d+) from (\S+)', l)
    if m:
        s = socks.setdefault(m[1], dict(d=0, g=0, t=0, u=0, n=0, drops=None))
        s['d'] += int(m[3]); s['g'] += int(m[4]); s['u'] += int(m[5]); s['t'] += int(m[6]); s['n'] += 1
        if want_from and m[7] != want_from:
            bad.append(f"sock {m[1]} {m[2]}: from {m[7]}, not {want_from}")
        continue
    m = re.match(r'sock (\d+) drops (\d+) stamped (\d+)', l)
    if m:
        socks[m[1]]['drops'] = int(m[2])
d_all = drops_all = 0
for k, s in socks.items():
    d_all += s['d']; drops_all += s['drops']
    if s['d'] + s['drops'] != n * s['n']:
        bad.append(f"sock {k}: delivered {s['d']} + drops {s['drops']} != published {n * s['n']}")
    if s['g'] + s['t'] != s['drops']:
        bad.append(f"sock {k}: missing by its own count {s['g'] + s['t']} != drops reported {s['drops']}")
    if s['u']:
        bad.append(f"sock {k}: {s['u']} duplicates")
if lib:
    ld = ll = 0
    for l in open(lib):
        m = re.search(r'(?:closed|at exit): feed \S+ ifindex \d+: delivered (\d+), lost (\d+)', l)
        if m:
            ld += int(m[1]); ll += int(m[2])
    if (ld, ll) != (d_all, drops_all):
        bad.append(f"library counted delivered {ld} lost {ll}, the program {d_all} and {drops_all}")
print('  ' + ('; '.join(bad) if bad else f'{len(socks)} socket(s): delivered {d_all} + drops {drops_all} == published'))
sys.exit(1 if bad or not socks else 0)
PY
}

# witness GROUP PORT NAME: a native reader on the feed (keeps it and its
# counters); its JSON in $R/NAME.json
witness() {
	$SUB -i veth0 -n "$N" -t $(tmo 20) -j "$1" "$2" >"$R/$3.json" 2>"$R/$3.err" &
	wait_for "$R/$3.err" bound
}

# ring_reads LOG MIN: the library's account of where its ticks came from
# (ring.c): from the mapped rings R, by recvmsg K; R + K == the feeds'
# delivered + filtered, and R >= MIN.  Prints "R K".
ring_reads() {
	python3 - "$1" "$2" <<'PY'
import re, sys
l = open(sys.argv[1]).read()
r = sum(int(x) for x in re.findall(r'ticks read from the rings (\d+), by recvmsg \d+', l))
k = sum(int(x) for x in re.findall(r'ticks read from the rings \d+, by recvmsg (\d+)', l))
d = sum(int(a) + int(b) for a, b in re.findall(
    r'(?:closed|at exit): feed \S+ ifindex \d+: delivered (\d+), lost \d+, filtered (\d+)', l))
print(r, k)
sys.exit(0 if r + k == d and r >= int(sys.argv[2]) else 1)
PY
}

feed_rx_is() {
	jtrue "$R/$1.json" "j['feed_rx'] == $2" || { echo "  witness $1: $(cat "$R/$1.json")"; return 1; }
}

read_modes() {
	local m port=7300 g=239.3.0.1 log out
	for m in block nonblock select poll epoll epoll-early mmsg read readv peek; do
		port=$((port + 1))
		log=$R/modes-$m.log out=$R/modes-$m.out
		rm -f "$log"
		local mode=${m%-early} early=
		[[ $m == *-early ]] && early=-E
		IBTICK_LOG=$log $RUN -g $g:$port@veth0 -- $RECV -m "$mode" $early -i 10.99.0.1 \
			-n "$N" -t $(tmo 5)000 $g:$port >"$out" 2>"$R/modes-$m.err" &
		wait_for "$R/modes-$m.err" ready || { check_err 1 "$m: receiver not ready"; continue; }
		# readv's sender writev()s on a connected socket
		local how=
		[[ $m == readv ]] && how="-c -w"
		# shellcheck disable=SC2086
		IBTICK_LOG=$log $RUN -g $g:$port@veth1 -- $SEND -i 10.99.0.2 -r 2 $how -n "$N" $g:$port \
			>"$R/modes-$m.send" || check_err 1 "$m: sender failed"
		wait
		grep -q "fd [0-9]*: taken over: reads $g:$port" "$log" || check_err 1 "$m: not taken over"
		grep -q "taken over: publishes to $g:$port" "$log" || check_err 1 "$m: sender not taken over"
		local rk min=0
		# a reader that reads until EAGAIN finds ticks waiting in the rings
		[[ $m == nonblock || $m == epoll || $m == mmsg ]] && min=1
		rk=$(ring_reads "$log" $min) || check_err 1 "$m: rings + recvmsg ($rk) != delivered, or none from the rings"
		echo "  $m: $(tail -n 1 "$out")$(grep -o ' late [1-9][0-9]*' "$out" | head -n 1 || true); rings/recvmsg: $rk"
		[[ $m != peek ]] || grep -q "^peekbad 0$" "$out" ||
			check_err 1 "peek: FIONREAD, MSG_PEEK and the read disagreed"
		if [[ $m == read || $m == readv || $m == peek ]]; then
			# read() and recv() have no control message: the drops are the library's
			python3 - "$out" "$log" "$N" <<'PY' || check_err 1 "read: delivered + lost != published"
import re, sys
o = open(sys.argv[1]).read(); l = open(sys.argv[2]).read(); n = int(sys.argv[3])
d = int(re.search(r'total delivered (\d+) drops \d+ gaps (\d+) tail (\d+)', o)[1])
g = re.search(r'total delivered \d+ drops \d+ gaps (\d+) tail (\d+)', o)
lost = sum(int(x) for x in re.findall(r'(?:closed|at exit): feed \S+ ifindex \d+: delivered \d+, lost (\d+)', l))
sys.exit(0 if d + lost == n and int(g[1]) + int(g[2]) == lost else 1)
PY
		else
			FROM=10.99.0.2 tally "$out" "$N" "$log" || check_err 1 "$m: counts"
		fi
		[[ $mode == block || $mode == read || $mode == readv || $mode == peek || $mode == nonblock || $mode == select || $mode == poll ]] ||
			grep -q "stamped $(grep -o 'delivered [0-9]*' "$out" | head -1 | cut -d' ' -f2)\$" "$out" ||
			check_err 1 "$m: not every tick carried SCM_TIMESTAMPNS"
	done
	log_test "blocking, non-blocking, select, poll, epoll (registered before the takeover too), recvmmsg, read, readv (from writev), FIONREAD + MSG_PEEK: delivered + lost == published; ticks from the rings + from recvmsg == delivered"
}

# ibtick-run -K: the library reads nothing from the rings, and the counts
# are the same; without it a non-blocking reader of two feeds takes most
# ticks from the rings
rings_or_kernel() {
	local g=239.3.0.200 p=7400 k log out rk
	for k in "" -K; do
		p=$((p + 1))
		log=$R/rk$k.log out=$R/rk$k.out
		rm -f "$log"
		# shellcheck disable=SC2086
		IBTICK_LOG=$log $RUN $k -g $g:$p@veth0 -g 239.3.0.201:$p@veth0 -- $RECV -m nonblock \
			-i 10.99.0.1 -n "$N" -t $(tmo 5)000 $g:$p 239.3.0.201:$p >"$out" 2>"$R/rk$k.err" &
		wait_for "$R/rk$k.err" ready || { check_err 1 "receiver$k not ready"; continue; }
		$RUN -g $g:$p@veth1 -g 239.3.0.201:$p@veth1 -- $SEND -i 10.99.0.2 -r 4 -n "$N" \
			$g:$p 239.3.0.201:$p >/dev/null 2>&1 || check_err 1 "sender$k failed"
		wait
		FROM=10.99.0.2 tally "$out" "$N" "$log" || check_err 1 "counts$k"
		if [[ -z $k ]]; then
			rk=$(ring_reads "$log" $((N / 2))) || check_err 1 "rings/recvmsg $rk: fewer than half from the rings"
		else
			rk=$(ring_reads "$log" 0) && [[ $rk == "0 "* ]] || check_err 1 "-K: rings/recvmsg $rk"
		fi
		echo "  ibtick-run${k:- }: from the rings / by recvmsg: $rk"
	done
	log_test "a non-blocking reader of two groups takes its ticks from the mapped rings (ibtick-run -K: from recvmsg alone); delivered + lost == published either way"
}

# A second thread joins and leaves a configured group on the reading
# socket all the while (a feed added and dropped, its ring mapped and
# unmapped): the reader's counts still add up, blocking or not
churn_while_reading() {
	local g=239.3.10.1 p=7410 m log out n rk
	for m in nonblock block; do
		p=$((p + 1))
		log=$R/churn-$m.log out=$R/churn-$m.out
		rm -f "$log"
		IBTICK_LOG=$log $RUN -g 239.3.10.0/24:$p@veth0 -- $RECV -m $m -C 239.3.10.9 -i 10.99.0.1 \
			-n "$N" -t $(tmo 5)000 $g:$p >"$out" 2>"$R/churn-$m.err" &
		wait_for "$R/churn-$m.err" ready || { check_err 1 "$m: receiver not ready"; continue; }
		$RUN -g 239.3.10.0/24:$p@veth1 -- $SEND -i 10.99.0.2 -r 2 -n "$N" $g:$p >/dev/null 2>&1 ||
			check_err 1 "$m: sender failed"
		wait
		FROM=10.99.0.2 tally "$out" "$N" "$log" || check_err 1 "$m: counts"
		n=$(sed -n 's/^churn \([0-9]*\) churnerr 0$/\1/p' "$out")
		((${n:-0} >= 10)) || check_err 1 "$m: $(grep churn "$out"): too few clean join/leave cycles"
		rk=$(ring_reads "$log" 0) || check_err 1 "$m: rings + recvmsg ($rk) != delivered"
		echo "  $m: $(tail -n 1 "$out"); join/leave cycles $n; rings/recvmsg $rk"
	done
	log_test "a thread joins and leaves a group on the socket while another reads it (blocking, non-blocking): delivered + lost == published"
}

# Two threads read one socket at once (-T 2), blocking (both inside the
# kernel's recvmsg: in_kernel 2), non-blocking (the rings under rxlock) and
# peeking (the stash: FIONREAD, MSG_PEEK, then the read; the threads' peeks
# and reads interleave, so peekbad is not counted): no tick twice, none
# lost uncounted.  Then the same non-blocking pair with a fork while they
# read (-f) and a third thread joins and leaves a group meanwhile (-C, the
# library's table lock taken and let go all the time): the child, whose
# locks and mappings the library remakes, closes the sockets and exits 0;
# the parent reads on.  The child's log counts what it read itself (none):
# parent's and child's logs add up to what the program delivered.
two_readers_one_socket() {
	local g=239.3.11.1 p=7420 m log out rk opts
	for m in block nonblock peek nonblock-fork; do
		p=$((p + 1))
		log=$R/two-$m.log out=$R/two-$m.out opts=(-T 2)
		[[ $m == *-fork ]] && opts+=(-f -C 239.3.11.9)
		rm -f "$log"
		IBTICK_LOG=$log $RUN -g 239.3.11.0/24:$p@veth0 -- $RECV -m "${m%-fork}" "${opts[@]}" -i 10.99.0.1 \
			-n "$N" -t $(tmo 5)000 $g:$p >"$out" 2>"$R/two-$m.err" &
		wait_for "$R/two-$m.err" ready || { check_err 1 "$m: receiver not ready"; continue; }
		$RUN -g $g:$p@veth1 -- $SEND -i 10.99.0.2 -r 2 -n "$N" $g:$p >/dev/null 2>&1 ||
			check_err 1 "$m: sender failed"
		wait
		# (a peek's recv() has no msg_name: no sender to check)
		FROM=10.99.0.2
		[[ $m != peek ]] || FROM=
		FROM=$FROM tally "$out" "$N" "$log" || check_err 1 "$m: counts"
		rk=$(ring_reads "$log" 0) || check_err 1 "$m: rings + recvmsg ($rk) != delivered"
		if [[ $m == *-fork ]]; then
			grep -q "^churn [1-9][0-9]* churnerr 0$" "$out" || check_err 1 "$m: $(grep churn "$out")"
			grep -qx "forked 0" "$out" || check_err 1 "$m: $(grep forked "$out"): the child did not close its sockets cleanly"
			grep -q "closed: feed $g:$p ifindex [0-9]*: delivered 0, lost 0, filtered 0" "$log" ||
				check_err 1 "$m: the child's close did not log counts of its own"
			rk+="; $(grep forked "$out"); $(grep churn "$out")"
		fi
		echo "  $m: $(tail -n 1 "$out"); rings/recvmsg $rk"
	done
	log_test "two threads read one socket (blocking, non-blocking, peeking; a fork meanwhile): no tick twice, delivered + lost == published"
}

lapped_reader_counts_loss() {
	local log=$R/lapped.log out=$R/lapped.out p=7310 g=239.3.0.100 drops
	rm -f "$log"
	# the witness creates the feed with a 256-slot ring; the program reads
	# a tick every 2 ms while 2 a ms arrive: it is lapped, and must count it
	$SUB -i veth0 -S 256 -n "$N" -t $(tmo 20) -j $g $p >"$R/lapped-w.json" 2>"$R/lapped-w.err" &
	wait_for "$R/lapped-w.err" bound || check_err 1 "witness"
	IBTICK_LOG=$log $RUN -g $g:$p@veth0 -- $RECV -m epoll -d 2000 -i 10.99.0.1 -n "$N" \
		-t $(tmo 5)000 $g:$p >"$out" 2>"$R/lapped.err" &
	wait_for "$R/lapped.err" ready || check_err 1 "receiver not ready"
	$RUN -g $g:$p@veth1 -- $SEND -i 10.99.0.2 -r 2 -n "$N" $g:$p >/dev/null 2>&1 ||
		check_err 1 "sender failed"
	wait
	cat "$out"
	drops=$(sed -n 's/^sock 0 drops \([0-9]*\) .*/\1/p' "$out")
	((drops > 0)) || check_err 1 "the slow reader was not lapped (drops '$drops')"
	FROM=10.99.0.2 tally "$out" "$N" "$log" || check_err 1 "counts"
	feed_rx_is lapped-w "$N" || check_err 1 "feed_rx != $N"
	log_test "a lapped reader: losses reach the program as SO_RXQ_OVFL, delivered + lost == published, its own gap count agrees"
}

several_groups_one_socket() {
	local log=$R/groups.log out=$R/groups.out p=7320 g
	rm -f "$log"
	witness 239.3.1.2 $p groups-w || check_err 1 "witness"
	IBTICK_LOG=$log $RUN -g 239.3.1.0/24:$p@veth0 -- $RECV -m epoll -i 10.99.0.1 -n "$N" \
		-t $(tmo 5)000 239.3.1.1:$p 239.3.1.2:$p 239.3.1.3:$p >"$out" 2>"$R/groups.err" &
	wait_for "$R/groups.err" ready || check_err 1 "receiver not ready"
	IBTICK_LOG=$log $RUN -g 239.3.1.0/24:$p@veth1 -- $SEND -i 10.99.0.2 -r 2 -n "$N" \
		239.3.1.1:$p 239.3.1.2:$p 239.3.1.3:$p >"$R/groups.send" || check_err 1 "sender failed"
	wait
	cat "$out"
	grep -q "reads 239.3.1.3:$p ifindex [0-9]* over ibtick too" "$log" ||
		check_err 1 "the third group is not on the same socket"
	grep -q "publishes to 239.3.1.2:$p ifindex [0-9]* from a socket of its own" "$log" ||
		check_err 1 "the sender's second destination has no publisher of its own"
	FROM=10.99.0.2 tally "$out" "$N" "$log" || check_err 1 "counts"
	feed_rx_is groups-w "$N" || check_err 1 "feed_rx of 239.3.1.2 != $N"
	log_test "one socket reads three groups (IBTICK_ADD_FEED); one sender, three feeds: delivered + lost == published"
}

drop_membership() {
	local log=$R/drop.log out=$R/drop.out p=7325
	rm -f "$log"
	# three groups joined, the third left at once (IBTICK_DROP_FEED): the
	# sender's ticks to it reach no reader, the other two arrive whole
	IBTICK_LOG=$log $RUN -g 239.3.1.0/24:$p@veth0 -- $RECV -m epoll -X -i 10.99.0.1 -n "$N" \
		-t $(tmo 5)000 239.3.1.1:$p 239.3.1.2:$p 239.3.1.3:$p >"$out" 2>"$R/drop.err" &
	wait_for "$R/drop.err" ready || check_err 1 "receiver not ready"
	$RUN -g 239.3.1.0/24:$p@veth1 -- $SEND -i 10.99.0.2 -r 2 -n "$N" \
		239.3.1.1:$p 239.3.1.2:$p 239.3.1.3:$p >/dev/null 2>&1 || check_err 1 "sender failed"
	wait
	cat "$out"
	grep -q "dropped 239.3.1.3:$p: delivered 0, lost 0" "$log" || check_err 1 "no DROP_FEED in the log"
	grep -q "^stray 0$" "$out" || check_err 1 "ticks of the dropped group delivered"
	FROM=10.99.0.2 tally "$out" "$N" "$log" || check_err 1 "counts"
	log_test "IP_DROP_MEMBERSHIP: the dropped group's ticks stop, the others' arrive whole"
}

several_sockets_one_group() {
	local log=$R/socks.log out=$R/socks.out p=7330
	rm -f "$log"
	witness 239.3.2.1 $p socks-w || check_err 1 "witness"
	# the rule names no interface: SO_BINDTODEVICE gives it
	IBTICK_LOG=$log $RUN -g 239.3.2.1:$p -- $RECV -m poll -s 3 -b veth0 -n "$N" \
		-t $(tmo 5)000 239.3.2.1:$p >"$out" 2>"$R/socks.err" &
	wait_for "$R/socks.err" ready || check_err 1 "receiver not ready"
	$RUN -g 239.3.2.1:$p@veth1 -- $SEND -i 10.99.0.2 -r 2 -n "$N" 239.3.2.1:$p \
		>"$R/socks.send" 2>&1 || check_err 1 "sender failed"
	wait
	cat "$out"
	(($(grep -c "taken over: reads 239.3.2.1:$p ifindex $(cat /sys/class/net/veth0/ifindex) " "$log") == 3)) ||
		check_err 1 "not three sockets taken over on veth0's port"
	FROM=10.99.0.2 tally "$out" "$N" "$log" || check_err 1 "counts"
	feed_rx_is socks-w "$N" || check_err 1 "feed_rx != $N"
	log_test "three sockets on one group (SO_REUSEADDR, SO_BINDTODEVICE) each: delivered + lost == published"
}

fork_exec_child_inherits() {
	local log=$R/child.log out=$R/child.out p=7340 cpid
	rm -f "$log"
	# sh forks and execs mcrecv (the command is not its last), and mcsend
	IBTICK_LOG=$log $RUN -g 239.3.3.1:$p@veth0 -- sh -c \
		"$RECV -m select -i 10.99.0.1 -n $N -t $(tmo 5)000 239.3.3.1:$p; echo child exit \$?" \
		>"$out" 2>"$R/child.err" &
	wait_for "$R/child.err" ready || check_err 1 "receiver not ready"
	IBTICK_LOG=$log $RUN -g 239.3.3.1:$p@veth1 -- sh -c \
		"$SEND -i 10.99.0.2 -r 2 -n $N 239.3.3.1:$p; true" >"$R/child.send" || check_err 1 "sender failed"
	wait
	cat "$out"
	grep -q "^child exit 0$" "$out" || check_err 1 "the child failed"
	cpid=$(sed -n 's/^ibtick-run\[\([0-9]*\)\]: fd [0-9]*: taken over: reads 239.3.3.1.*/\1/p' "$log")
	[[ -n $cpid ]] || check_err 1 "the child's socket was not taken over"
	FROM=10.99.0.2 tally "$out" "$N" "$log" || check_err 1 "counts"
	log_test "a child started by fork + exec (sh -c) inherits the configuration and is taken over"
}

source_filter() {
	local log=$R/src.log p=7345 g=239.3.3.5
	rm -f "$log"
	# two sockets, source-specific: one of the sender's address, one of an
	# address that sends nothing; the second gets nothing, each filtered
	# tick counted by the library
	IBTICK_LOG=$log $RUN -g $g:$p@veth0 -- $RECV -m poll -F 10.99.0.2 -i 10.99.0.1 -n "$N" \
		-t $(tmo 5)000 $g:$p >"$R/src-ok.out" 2>"$R/src-ok.err" &
	IBTICK_LOG=$log $RUN -g $g:$p@veth0 -- $RECV -m poll -F 10.99.0.9 -i 10.99.0.1 -n "$N" \
		-t $(tmo 10)000 $g:$p >"$R/src-no.out" 2>"$R/src-no.err" &
	wait_for "$R/src-ok.err" ready && wait_for "$R/src-no.err" ready || check_err 1 "receivers not ready"
	$RUN -g $g:$p@veth1 -- $SEND -i 10.99.0.2 -r 2 -n "$N" $g:$p >/dev/null 2>&1 || check_err 1 "sender failed"
	wait
	cat "$R/src-ok.out" "$R/src-no.out"
	grep -q "^total delivered $N drops 0 gaps 0 tail 0 expected $N$" "$R/src-ok.out" ||
		check_err 1 "the socket of source 10.99.0.2 did not get all $N"
	grep -q "^total delivered 0 drops 0 " "$R/src-no.out" || check_err 1 "the socket of source 10.99.0.9 got ticks"
	grep -q "feed $g:$p ifindex [0-9]*: delivered $N, lost 0, filtered 0" "$log" ||
		check_err 1 "library: not delivered $N, filtered 0"
	grep -q "feed $g:$p ifindex [0-9]*: delivered 0, lost 0, filtered $N" "$log" ||
		check_err 1 "library: not filtered $N"
	log_test "IP_ADD_SOURCE_MEMBERSHIP: ticks of the sender joined are delivered, the others filtered and counted"
}

# rcvd_pkts DEV: packets rxe's port took
rcvd_pkts() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/rcvd_pkts"; }
udp_in() { awk '/^Udp: [0-9]/ { print $2 }' /proc/net/snmp; }

unconfigured_groups_kernel_udp() {
	local log=$R/unconf.log out=$R/unconf.out p=7350 q=7351 rx0 rx1 u0 u1 feeds
	rm -f "$log"
	witness 239.3.4.1 $p unconf-w || check_err 1 "witness"
	rx0=$(rcvd_pkts rxe0) u0=$(udp_in)
	# one receiving socket per port; 239.3.4.2:$q is not configured
	IBTICK_LOG=$log $RUN -g 239.3.4.1:$p@veth0 -- $RECV -m epoll -i 10.99.0.1 -n "$N" \
		-t $(tmo 5)000 239.3.4.1:$p 239.3.4.2:$q >"$out" 2>"$R/unconf.err" &
	wait_for "$R/unconf.err" ready || check_err 1 "receiver not ready"
	feeds=$($IBTICK -j feed show | jin "sorted('%s:%s' % (f['group'], f['port']) for f in j)")
	# one sending socket: the configured group over ibtick, the other over kernel UDP
	IBTICK_LOG=$log $RUN -g 239.3.4.1:$p@veth1 -- $SEND -i 10.99.0.2 -r 2 -n "$N" \
		239.3.4.1:$p 239.3.4.2:$q >"$R/unconf.send" || check_err 1 "sender failed"
	wait
	rx1=$(rcvd_pkts rxe0) u1=$(udp_in)
	cat "$out"
	echo "  feeds while it ran: $feeds; rxe0 rcvd_pkts +$((rx1 - rx0)), Udp InDatagrams +$((u1 - u0))"
	[[ $feeds == "['239.3.4.1:$p']" ]] || check_err 1 "feeds: $feeds"
	grep -q "239.3.4.2:$q not configured: kernel UDP" "$log" || check_err 1 "no 'not configured' log"
	grep -q "^sock 1 239.3.4.2:$q delivered $N gaps 0 dups 0 tail 0 from 10.99.0.2 late [0-9]*$" "$out" ||
		check_err 1 "kernel UDP did not deliver all $N, from 10.99.0.2"
	FROM=10.99.0.2 tally "$out" "$N" || check_err 1 "counts"
	feed_rx_is unconf-w "$N" || check_err 1 "feed_rx != $N"
	# the unconfigured group's datagrams did not go through rxe, and both
	# paths went through the kernel's UDP (rxe is UDP-encapsulated)
	((rx1 - rx0 >= N && rx1 - rx0 < N + N / 2)) || check_err 1 "rxe0 took $((rx1 - rx0)) packets for $N ticks"
	((u1 - u0 >= 2 * N)) || check_err 1 "Udp InDatagrams +$((u1 - u0)) < $((2 * N))"
	log_test "an unconfigured group stays kernel UDP (no feed, not through rxe) while the configured one goes over ibtick; one sender socket splits them"
}

mixed_socket_drops_counted() {
	local log=$R/mixed.log out=$R/mixed.out p=7360
	rm -f "$log"
	# one socket, two groups on one port, only the first configured: the
	# second's datagrams go to the shadow UDP socket, which the program no
	# longer reads: told at the join, counted and told at close
	IBTICK_LOG=$log $RUN -g 239.3.5.1:$p@veth0 -- $RECV -m poll -i 10.99.0.1 -n "$N" \
		-t $(tmo 3)000 239.3.5.1:$p 239.3.5.2:$p >"$out" 2>"$R/mixed.err" &
	wait_for "$R/mixed.err" ready || check_err 1 "receiver not ready"
	$SEND -i 10.99.0.2 -r 2 -n "$N" 239.3.5.2:$p >/dev/null || check_err 1 "UDP sender failed"
	$RUN -g 239.3.5.1:$p@veth1 -- $SEND -i 10.99.0.2 -r 2 -n "$N" 239.3.5.1:$p \
		>/dev/null 2>&1 || check_err 1 "ibtick sender failed"
	wait
	cat "$out" "$R/mixed.err"
	grep -q "239.3.5.2:$p is not configured: joined on kernel UDP, but this socket reads ibtick only" \
		"$R/mixed.err" || check_err 1 "not told at the join"
	grep -q "$N kernel UDP datagram(s) for port $p were not delivered" "$R/mixed.err" ||
		check_err 1 "the $N undelivered datagrams not counted at close"
	grep -q "^sock 0 239.3.5.1:$p delivered $N " "$out" || check_err 1 "the configured group lost ticks"
	log_test "a socket with a configured and an unconfigured group on one port: the UDP datagrams it cannot deliver are counted and told"
}

# A socket that only publishes reads kernel UDP (its replies) on its
# shadow: a fork's child that exits (the library's exit handler runs) must
# leave them to the parent - the library drains and counts a shadow at
# close or exit only for a socket that reads feeds, which cannot read it.
publisher_replies_kept() {
	local g=239.3.12.1 p=7430 rp=7431 n=100 out=$R/pubreply.out go
	local log=$R/pubreply.log w u0 i
	rm -f "$log"
	# the go signal: a FIFO in the guest's own /tmp (9p cannot hold one)
	go=$(mktemp -u "${TMPDIR:-/tmp}/pubreply.XXXXXX")
	mkfifo "$go" || { check_err 1 "mkfifo $go"; return; }
	IBTICK_LOG=$log $RUN -g $g:$p@veth1 -- $SEND -i 10.99.0.2 -n 10 -F $rp $g:$p <"$go" \
		>"$out" 2>"$R/pubreply.err" &
	exec {w}>"$go"
	wait_for "$out" "errors 0" || check_err 1 "the publisher did not send"
	# over ibtick, its UDP socket the shadow: what the test is about
	grep -q "taken over: publishes to $g:$p" "$log" || check_err 1 "the publisher was not taken over"
	u0=$(udp_in)
	$SEND -i 10.99.0.1 -n $n 10.99.0.2:$rp >/dev/null || check_err 1 "the reply sender failed"
	# every reply in the socket's queue before the child exits
	for ((i = 0; i < 50 && $(udp_in) - u0 < n; i++)); do sleep 0.1; done
	echo go >&"$w"
	exec {w}>&-
	wait
	rm -f "$go"
	cat "$out"
	grep -qx "replies $n" "$out" || check_err 1 "the parent read $(sed -n 's/^replies //p' "$out") of $n replies after its child exited"
	log_test "a publisher's kernel UDP replies stay its own when a forked child exits"
}

publish_refused_clear_message() {
	local out=$R/refused.out p=7370
	"${NOBODY[@]}" $RUN -g 239.3.6.1:$p@veth1 -- $SEND -i 10.99.0.2 -n 10 239.3.6.1:$p >"$out" 2>"$R/refused.err"
	check_fail $? "an unprivileged publisher succeeded"
	cat "$R/refused.err" "$out"
	grep -q "publishing to 239.3.6.1:$p (ifindex [0-9]*) over ibtick refused: Operation not permitted: publishing on an auto feed needs CAP_NET_RAW" \
		"$R/refused.err" || check_err 1 "no clear message"
	(($(grep -c "refused" "$R/refused.err") == 1)) || check_err 1 "told more than once"
	grep -q "^sent 239.3.6.1:$p 0$" "$out" && grep -q "^errors 10$" "$out" ||
		check_err 1 "the sends did not all fail"
	log_test "a publisher without CAP_NET_RAW: every send fails (EPERM), told once on stderr, none dropped silently"
}

# O_ASYNC on taken-over sockets: SIGIO for ticks is not reliable over
# ibtick, and the library says so once per socket, whether the flag came before the
# takeover (fcntl, then IP_ADD_MEMBERSHIP) or after it (fcntl twice, and
# ioctl FIOASYNC); a socket of an unconfigured group is not told about.
o_async_told() {
	local p=7375 log=$R/async.log
	rm -f "$log"
	IBTICK_LOG=$log $RUN -g 239.3.6.0/24:$p@veth1 -- python3 - $p <<-'PY'
		import fcntl, os, socket, struct, sys
		port = int(sys.argv[1])
		def sock(group, async_first):
		    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
		    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
		    s.bind(("", port))
		    if async_first:
		        fcntl.fcntl(s, fcntl.F_SETFL, fcntl.fcntl(s, fcntl.F_GETFL) | os.O_ASYNC)
		    mreq = struct.pack("4s4s", socket.inet_aton(group), socket.inet_aton("10.99.0.2"))
		    s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
		    return s
		a = sock("239.3.6.2", True)
		b = sock("239.3.6.3", False)
		for _ in range(2):
		    fcntl.fcntl(b, fcntl.F_SETFL, fcntl.fcntl(b, fcntl.F_GETFL) | os.O_ASYNC)
		c = sock("239.3.6.4", False)
		fcntl.ioctl(c, 0x5452, struct.pack("i", 1))	# FIOASYNC
		d = sock("239.3.8.1", True)	# not configured: kernel UDP
		print("fds", a.fileno(), b.fileno(), c.fileno(), d.fileno())
	PY
	check_err $? "the program failed"
	cat "$log"
	(($(grep -c "O_ASYNC: SIGIO for ticks is not reliable over ibtick" "$log") == 3)) ||
		check_err 1 "not told once for each of the three taken-over sockets"
	log_test "O_ASYNC on taken-over sockets (before or after the takeover, fcntl or FIOASYNC): SIGIO not reliable, told once per socket"
}

# busy_rings LOG MODE: a busy reader's ticks, by the library's log: a
# non-blocking one (MODE nonblock, spin) takes most from the rings, which
# its looks at the CQs (IBTICK_SIOC_LOOK) fill; a blocking one looks at none
# and takes most from the rings too, after its waits (IBTICK_SIOC_WAIT).
busy_rings() {
	python3 - "$@" <<-'PY'
		import re, sys
		log, mode = sys.argv[1], sys.argv[2]
		ring = kern = waits = looks = 0
		for l in open(log):
		    m = re.search(r'ticks read from the rings (\d+), by recvmsg (\d+);.* waits (\d+), busy looks (\d+);', l)
		    if m:
		        ring += int(m[1]); kern += int(m[2]); waits += int(m[3]); looks += int(m[4])
		ok = ring > kern and (looks == 0 and waits > 0 if mode == "block" else looks > 0)
		print("  the library: ticks from the rings %d, by recvmsg %d, waits %d, busy looks %d: %s" %
		      (ring, kern, waits, looks, "as expected" if ok else "NOT as expected for " + mode))
		sys.exit(0 if ok else 1)
	PY
}

# busy_reader PORT MODE DEFER_US LOGLINE -b ... : ibtick-run with those
# options over mcrecv -m MODE (nonblock, spin; block with one group)
# reading BUSY_GROUPS groups (default 2: one socket, two feeds); a line of
# the library's log must match LOGLINE (a regular expression), mcrecv must
# succeed, and the reader's calls must drain most of every feed's CQ,
# with CQ events for at most half the ticks.  The feeds are made by the
# admin so that their counters outlive the program.  SLEEPER=1: a second
# program under ibtick-run without -b, mcrecv -m epoll, reads the same
# groups meanwhile and must get every tick too.  Counts, not times.
busy_reader() {
	local p=$1 mode=$2 d=$3 line=$4 log=$R/busy-$1.log out=$R/busy-$1.out f cq
	local defer=/sys/module/ibtick/parameters/busy_poll_defer_us rc=0 rpid spid=
	local caller events ticks groups=() ng=${BUSY_GROUPS:-2}
	shift 4
	rm -f "$log"
	echo "$d" >"$defer" || { echo "  busy_poll_defer_us"; return 1; }
	for ((f = 1; f <= ng; f++)); do
		$IBTICK feed add pb$f group 239.3.9.$f port $p netdev veth0 || rc=1
		groups+=("239.3.9.$f:$p")
	done
	IBTICK_LOG=$log $RUN "$@" -g 239.3.9.0/24:$p@veth0 -- $RECV -m "$mode" -i 10.99.0.1 \
		-n "$N" -t $(tmo 5)000 "${groups[@]}" >"$out" 2>"$R/busy-$p.err" &
	rpid=$!
	wait_for "$R/busy-$p.err" ready || { echo "  receiver not ready"; rc=1; }
	if [[ ${SLEEPER:-} ]]; then
		$RUN -g 239.3.9.0/24:$p@veth0 -- $RECV -m epoll -i 10.99.0.1 -n "$N" -t $(tmo 5)000 \
			"${groups[@]}" >"$R/sleeper-$p.out" 2>"$R/sleeper-$p.err" &
		spid=$!
		wait_for "$R/sleeper-$p.err" ready || { echo "  sleeper not ready"; rc=1; }
	fi
	$RUN -g 239.3.9.0/24:$p@veth1 -- $SEND -i 10.99.0.2 -r 2 -n "$N" "${groups[@]}" \
		>/dev/null 2>&1 || { echo "  sender failed"; rc=1; }
	wait "$rpid" || { echo "  mcrecv failed: $(tail -2 "$R/busy-$p.err")"; rc=1; }
	if [[ $spid ]]; then
		wait "$spid" || { echo "  the sleeper failed: $(tail -2 "$R/sleeper-$p.err")"; rc=1; }
		echo "  the sleeping epoll reader:"
		tally "$R/sleeper-$p.out" "$N" || rc=1
	fi
	echo 0 >"$defer"
	grep -q "$line" "$log" || { echo "  no line like \"$line\" in the library's log"; rc=1; }
	FROM=10.99.0.2 tally "$out" "$N" "$log" || { echo "  counts"; rc=1; }
	busy_rings "$log" "$mode" || rc=1
	for ((f = 1; f <= ng; f++)); do
		# completions drained by the reader's calls, and by CQ events
		cq=$($IBTICK -j -s feed show pb$f | JIN_BIND="s = j[0]['stats']" \
			jin "'%d %d %d' % (s['cqe_caller'], s['cq_events'], s['rx_ticks'])")
		echo "  feed pb$f: drained by the reader $(cut -d' ' -f1 <<<"$cq"), CQ events $(cut -d' ' -f2 <<<"$cq"), ticks $(cut -d' ' -f3 <<<"$cq")"
		read -r caller events ticks <<<"$cq"
		((ticks == N && caller >= ticks / 2 && events <= ticks / 2)) || {
			echo "  feed pb$f: the reader's calls did not drain most of its CQ, or the events stayed on"
			rc=1
		}
		$IBTICK feed del pb$f || rc=1
	done
	return $rc
}

# ibtick-run -b: the sockets taken over get SO_BUSY_POLL, and the reader's
# calls drain both feeds' CQs.  The CQ event deferred 20 ms after each look
# (busy_poll_defer_us; -b sets no SO_PREFER_BUSY_POLL), long enough for a
# slow guest (the debug kernel) between two calls.
busy_poll_option() {
	busy_reader 7390 nonblock 20000 "fd [0-9]*: busy polling 100 us (SO_BUSY_POLL)$" -b 100
	log_test "ibtick-run -b: a non-blocking reader of two feeds drains both CQs in its own calls (SO_BUSY_POLL)" $?
}

# ibtick-run -b over a blocking reader of one group: its socket reads one
# feed, added as a multi-feed socket's (IBTICK_ADD_FEED), and its recvmsg
# spins on that feed as a single-feed socket's does, draining the CQ.  The
# spin (5 ms) outlasts the sender's gap (0.5 ms), or the reader would sleep
# with the CQ event on.
busy_blocking_one() {
	BUSY_GROUPS=1 busy_reader 7393 block 20000 "fd [0-9]*: busy polling 5000 us (SO_BUSY_POLL)$" -b 5000
	log_test "ibtick-run -b: a blocking reader of one group drains its feed's CQ in its own calls (SO_BUSY_POLL)" $?
}

# ibtick-run -b -p: SO_PREFER_BUSY_POLL too, so with busy_poll_defer_us 0
# the CQ event stays off while a reader that spins on non-blocking reads
# (never away for the 200 us of the deferral) keeps calling; without -p
# every empty look turns it back on: an event for about every tick.  -p
# alone is refused.
busy_prefer_option() {
	local rc=0
	$RUN -p -g 239.3.9.0/24:7391@veth0 -- true 2>"$R/prefer-alone.err"
	(($? == 2)) && grep -q -- "-p goes with -b USEC, USEC > 0" "$R/prefer-alone.err" ||
		{ echo "  -p alone: $(cat "$R/prefer-alone.err")"; rc=1; }
	busy_reader 7392 spin 0 "fd [0-9]*: SO_PREFER_BUSY_POLL$" -b 100 -p || rc=1
	log_test "ibtick-run -b -p: SO_PREFER_BUSY_POLL, the CQ event stays off while the reader calls (-p alone refused)" $rc
}

# A sleeping reader of the same two feeds in another process (epoll,
# no busy polling) while a busy one looks with SO_PREFER_BUSY_POLL and a
# 20 ms deferral: each look leaves the CQ event off, so the looker's
# drains are what bring the sleeper its ticks.  It must get them all, and
# the looker must still drain most of the CQs itself.
busy_look_sleeper() {
	SLEEPER=1 busy_reader 7394 nonblock 20000 "fd [0-9]*: SO_PREFER_BUSY_POLL$" -b 100 -p
	log_test "ibtick-run -b -p: a sleeping epoll reader of the same feeds gets every tick the busy reader's looks drain" $?
}

sockperf_smoke() {
	local p=7380 g=239.3.7.1 log=$R/sockperf.log spid mode
	require_cmd sockperf || return
	rm -f "$log"
	for mode in ping-pong throughput; do
		IBTICK_LOG=$log $RUN -g $g:$p@veth0 -- sockperf server -i $g -p $p --mc-rx-if 10.99.0.1 \
			--mc-tx-if 10.99.0.1 >"$R/sockperf-server-$mode.out" 2>&1 &
		spid=$!
		sleep "$(tmo 2)"
		IBTICK_LOG=$log $RUN -g $g:$p@veth1 -- sockperf "$mode" -i $g -p $p --mc-rx-if 10.99.0.2 \
			--mc-tx-if 10.99.0.2 -t $(tmo 3) >"$R/sockperf-$mode.out" 2>&1
		check_err $? "sockperf $mode failed"
		kill -INT "$spid" 2>/dev/null
		wait
		grep -E "Summary|percentile 50.000|RunTime" "$R/sockperf-$mode.out" | sed 's/^/  /'
		grep "messages received" "$R/sockperf-server-$mode.out" | sed 's/^/  server: /'
		grep -q "Total [1-9][0-9]* messages received" "$R/sockperf-server-$mode.out" ||
			check_err 1 "$mode: the server received nothing"
		if [[ $mode == ping-pong ]]; then
			grep -q "SentMessages=[1-9]" "$R/sockperf-$mode.out" &&
				grep -q "ReceivedMessages=[1-9]" "$R/sockperf-$mode.out" ||
				check_err 1 "$mode: no round trip"
			continue
		fi
		# throughput: what the client sent the server received or the
		# library counted lost (its log at the server's exit)
		local sent rcvd lost
		sent=$(sed -n 's/.*Total of \([0-9]*\) messages sent.*/\1/p' "$R/sockperf-$mode.out")
		rcvd=$(sed -n 's/.*Total \([0-9]*\) messages received.*/\1/p' "$R/sockperf-server-$mode.out")
		lost=$(sed -n "s/^ibtick-run\[$spid\]: fd [0-9]*: [a-z ]*: feed .*, lost \([0-9]*\),.*/\1/p" "$log")
		echo "  throughput: client sent ${sent:-?}, server received ${rcvd:-?}, lost ${lost:-?}"
		[[ -n $sent && -n $rcvd && -n $lost ]] && ((sent > 0 && rcvd + lost == sent)) ||
			check_err 1 "throughput: sent $sent != received $rcvd + lost $lost"
	done
	(($(grep -c "taken over" "$log") >= 4)) || check_err 1 "sockperf's sockets not taken over"
	log_test "sockperf ping-pong and throughput over a multicast group under ibtick-run on both ends (a smoke test, no timing asserted)"
}

run_tests
