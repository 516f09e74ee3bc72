#!/usr/bin/env bash
# VM topic: conservation under randomly slowed readers.  For each of SEEDS
# seeds, TICKS/SEEDS ticks from rxe1 to a feed on rxe0 (a 256-slot ring, so
# slowed readers get lapped) read by a spinning mapped reader, an epoll
# mapped reader and a blocking recvmsg reader, each pausing at random
# (seeded; up to 30 ms once in 256 ticks, so they get lapped).  For every
# reader: delivered + lost == what the feed took, no tick delivered twice,
# ring order kept, no torn tick.  Defaults: 10^6
# ticks over 20 seeds.
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/lib.sh
. tests/vm/lib.sh

RT=tests/vm/ringtest
PUB=user/tools/ibtick-pub
SEEDS=${SEEDS:-20}
TICKS=${TICKS:-1000000}
# A slower guest publishes slower: pause longer and on a smaller ring, so
# that the slowed readers still get lapped.
SLOTS=$((SLOW > 1 ? 64 : 256))
PAUSE_US=$((30000 * SLOW))
ALL_TESTS="conservation_over_seeds"

conservation_over_seeds() {
	local rc=0 r=$RESULTS/conserve seed n=$((TICKS / SEEDS)) port f total_rx=0 total_lost=0
	mkdir -p "$r"
	for seed in $(seq "$SEEDS"); do
		port=$((7500 + seed))
		rm -f "$r"/*
		# the first reader creates the feed with a SLOTS-slot ring
		$RT read -S $SLOTS -r "$seed" -d $PAUSE_US -n $n -t $(tmo 5) -i veth0 239.4.0.1 $port >"$r/spin.json" 2>"$r/spin.err" &
		wait_bound "$r/spin.err" || rc=1
		$RT read -E -r $((seed + 1000)) -d $PAUSE_US -n $n -t $(tmo 5) -i veth0 239.4.0.1 $port >"$r/epoll.json" 2>"$r/epoll.err" &
		$RT read -R -r $((seed + 2000)) -d $PAUSE_US -n $n -t $(tmo 5) -i veth0 239.4.0.1 $port >"$r/recv.json" 2>"$r/recv.err" &
		wait_bound "$r/epoll.err" "$r/recv.err" || rc=1
		$PUB -i veth1 -n $n 239.4.0.1 $port >/dev/null 2>&1 || rc=1
		wait
		for f in "$r"/*.json; do
			python3 - "$f" "$seed" <<'PY' || rc=1
import json, sys
j = json.load(open(sys.argv[1]))
ok = (j['delivered'] + j['lost'] == j['feed_rx'] and j['dups'] == 0
      and j['idx_disorder'] == 0 and j['torn'] == 0 and j['feed_rx'] > 0
      and j['lib_agrees'])
if not ok:
    print(f"  seed {sys.argv[2]} {j['mode']}: {json.dumps(j)}")
sys.exit(0 if ok else 1)
PY
		done
		total_rx=$((total_rx + $(jget "$r/spin.json" "j['feed_rx']")))
		for f in "$r"/*.json; do
			total_lost=$((total_lost + $(jget "$f" "j['lost']")))
		done
	done
	echo "  $SEEDS seeds, $TICKS ticks published, $total_rx taken by the feeds, $total_lost counted lost by slowed readers"
	# the pauses (up to PAUSE_US on a SLOTS-slot ring) must have lapped someone
	((total_lost > 0)) || { echo "  no reader was ever lapped: the loss path went untested"; rc=1; }
	log_test "conservation over $SEEDS seeds x $n ticks, 3 randomly slowed readers: delivered + lost == taken, no dup, order kept" $rc
}

run_tests
