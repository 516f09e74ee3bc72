#!/usr/bin/env bash
# Check the receive ring's producer/reader protocol (tests/model/ring.pml)
# with spin, over every interleaving, for each configuration below: the
# protocol as written must show no error, and each deliberately broken
# variant must be caught (so this test can fail).
#
#   tests/model/run.sh          all configurations, one line each, then
#                               "model: N passed, N failed"
#
# Exit status 0 if all passed, 1 if not, 4 ("# SKIP") without spin.
# SPIN=, CC= and TMPDIR= are honoured; KEEP=1 keeps the work directory
# (pan sources, outputs and error trails) and prints its path.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd -P)
SPIN=${SPIN:-spin}
CC=${CC:-gcc}

if ! command -v "$SPIN" >/dev/null 2>&1; then
	echo "# SKIP spin not installed (scripts/deps.sh installs it)"
	exit 4
fi
if ! command -v "$CC" >/dev/null 2>&1; then
	echo "not ok - no C compiler ($CC)"
	echo "model: 0 passed, 1 failed"
	exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ibtick-model.XXXXXX") || exit 1
if [[ ${KEEP:-0} == 1 ]]; then
	echo "# work directory: $work"
else
	trap 'rm -rf "$work"' EXIT
fi

pass=0
fail=0
n=0

# Hash table 2^24 slots, depth bound well above what any run here reaches
# (a truncated search is reported as a failure), memory capped at 1 GiB.
PAN_CFLAGS=(-O2 -DCOLLAPSE -DMEMLIM=1024)
PAN_RUN=(-m50000 -w24)

# verify NAME EXPECT MODE DEFINE...
#   EXPECT  "pass": the search must complete with "errors: 0";
#           else an ERE the first error report ("pan:1: ...") must match,
#           with "errors: [1-9]" (a broken variant that spin must catch)
#   MODE    "safety" (assertions, invalid end states) or "liveness"
#           (the LTL claim of -DLIVENESS under weak fairness)
verify() {
	local name=$1 expect=$2 mode=$3 dir out states depth secs t0 why=""
	shift 3
	n=$((n + 1))
	dir=$work/$n
	mkdir -p "$dir"
	cp "$here/ring.pml" "$dir/"
	out=$dir/pan.out
	t0=$(date +%s.%N)
	(
		cd "$dir" || exit 1
		"$SPIN" -a "$@" ring.pml >spin.out 2>&1 || { cat spin.out; exit 1; }
		if [[ $mode == liveness ]]; then
			"$CC" "${PAN_CFLAGS[@]}" -o pan pan.c >cc.out 2>&1 ||
				{ cat cc.out; exit 1; }
			./pan -a -f "${PAN_RUN[@]}"
		else
			"$CC" "${PAN_CFLAGS[@]}" -DSAFETY -o pan pan.c >cc.out 2>&1 ||
				{ cat cc.out; exit 1; }
			./pan "${PAN_RUN[@]}"
		fi
	) >"$out" 2>&1
	secs=$(echo "$t0 $(date +%s.%N)" | awk '{ printf "%.1f", $2 - $1 }')
	states=$(sed -nE 's/^ *([0-9.e+]+) states, stored.*/\1/p' "$out" | head -n 1)
	depth=$(sed -nE 's/.*depth reached ([0-9]+).*/\1/p' "$out" | head -n 1)

	if ! grep -qE 'errors: [0-9]+' "$out"; then
		why="spin/pan did not run"
	elif grep -q 'max search depth too small' "$out"; then
		why="depth bound reached (raise -m)"
	elif grep -q 'reached -DMEMLIM bound' "$out"; then
		why="memory bound reached"
	elif [[ $expect == pass ]]; then
		grep -q 'errors: 0$' "$out" || why="errors found: $(grep -m1 '^pan:1' "$out")"
		[[ -n $why ]] || ! grep -q 'Search not completed' "$out" ||
			why="search not completed"
	else
		if ! grep -qE 'errors: [1-9]' "$out"; then
			why="the broken variant was NOT caught"
		elif ! grep -m1 '^pan:1' "$out" | grep -qE -- "$expect"; then
			why="caught, but not as expected ($expect): $(grep -m1 '^pan:1' "$out")"
		fi
	fi

	if [[ -z $why ]]; then
		pass=$((pass + 1))
		if [[ $expect == pass ]]; then
			echo "ok - $name: errors 0, ${states:-?} states, depth ${depth:-?}, ${secs}s"
		else
			echo "ok - $name: caught ($(grep -m1 '^pan:1' "$out" | sed 's/^pan:1: //'), after ${states:-?} states), ${secs}s"
		fi
	else
		fail=$((fail + 1))
		echo "not ok - $name: $why (${states:-?} states, ${secs}s)"
		tail -n 25 "$out" | sed 's/^/#   /'
	fi
}

# --- the protocol as written: no error in any interleaving ----------------
# TICKS covers 2.5 to 3.5 laps; START=253 makes the 8-bit index wrap too.
verify "nslots=2 readers=1 ticks=7" pass safety -DNSLOTS=2 -DNREADERS=1 -DTICKS=7
verify "nslots=4 readers=1 ticks=10" pass safety -DNSLOTS=4 -DNREADERS=1 -DTICKS=10
verify "nslots=2 readers=2 ticks=5" pass safety -DNSLOTS=2 -DNREADERS=2 -DTICKS=5
verify "nslots=4 readers=2 ticks=6" pass safety -DNSLOTS=4 -DNREADERS=2 -DTICKS=6
# every reader ends (weak fairness; sequentially consistent loads)
verify "liveness nslots=2 readers=1 ticks=7 (sc)" pass liveness \
	-DNSLOTS=2 -DNREADERS=1 -DTICKS=7 -DSC_ONLY -DLIVENESS
verify "liveness nslots=4 readers=1 ticks=10 (sc)" pass liveness \
	-DNSLOTS=4 -DNREADERS=1 -DTICKS=10 -DSC_ONLY -DLIVENESS

# --- broken variants: spin must find the violation ------------------------
for ns in "2 7" "4 10"; do
	read -r s t <<<"$ns"
	cfg="nslots=$s ticks=$t"
	defs=(-DNSLOTS="$s" -DNREADERS=1 -DTICKS="$t")
	verify "broken no (F) re-check, $cfg" 'v0==cur' safety "${defs[@]}" -DBROKEN_NO_RECHECK
	verify "broken no busy mark, $cfg" 'v0==cur' safety "${defs[@]}" -DBROKEN_NO_BUSY
	verify "broken lap rule without max(i+1), $cfg" '\(nxt-cur\)' safety "${defs[@]}" -DBROKEN_LAP
	verify "broken end check (producer before DEAD), $cfg" 'dl==' safety "${defs[@]}" -DBROKEN_ENDED
done
verify "broken DEAD before the last commit, nslots=2 ticks=7" 'dl==' safety \
	-DNSLOTS=2 -DNREADERS=1 -DTICKS=7 -DBROKEN_DEAD_EARLY
verify "broken wait not woken by DEAD, nslots=2 ticks=7" 'invalid end state' safety \
	-DNSLOTS=2 -DNREADERS=1 -DTICKS=7 -DBROKEN_WAIT

echo "model: $pass passed, $fail failed"
((fail == 0))
