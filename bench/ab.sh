#!/usr/bin/env bash
# A/B of two module versions in one guest boot: the module built at BASE
# (a git revision) against the work tree's, each loaded in turn, rounds
# interleaved (base first in odd rounds, head first in even ones), every
# path's time taken as a ratio to the verbs floor measured with the same
# module loaded in the same round (a connection's, conn*, to floor-rc when
# KINDS has it).  For a change to the data path whose
# effect is smaller than the drift of the host between two bench runs.
#
# usage: bench/ab.sh [-r ROUNDS] [-n N] [-k KINDS] BASE [OUT_DIR]
#   ROUNDS (default 6) rounds of N (default 3000) samples of each path in
#   KINDS (default floor,mapped,busy,run-spin,recvmsg; floor is always
#   run, as the yardstick), 64 B ping-pong on rxe1 <- rxe0 as bench/run.sh
#   does, then one counted run (ibtick-perf --counts) of each module.
#   OUT_DIR (default bench/results/ab): ab.json (every row, tagged with
#   "mod": "base" or "head"), summary.md (ab.py); the modules, in mods/
#   while it runs, are removed after.
# The user-space tools are the work tree's for both: BASE must speak the
# same ABI.  CLOCK=tsc and IDLE=poll as bench/run.sh (the defaults).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=6 n=3000 kinds=floor,mapped,busy,run-spin,recvmsg
while getopts "r:n:k:" o; do
	case $o in
	r) rounds=$OPTARG ;;
	n) n=$OPTARG ;;
	k) kinds=$OPTARG ;;
	*) sed -n '10,19p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
(($# >= 1)) || { sed -n '10,19p' "$0" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]?$ && $n =~ ^[1-9][0-9]{0,6}$ ]] ||
	{ echo "bench/ab.sh: ROUNDS is 1..99, N 1..9999999" >&2; exit 2; }
[[ $kinds =~ ^[a-z,-]+$ ]] || { echo "bench/ab.sh: KINDS: a comma list of paths" >&2; exit 2; }
[[ ,$kinds, == *,floor,* ]] || kinds=floor,$kinds
base=$(git rev-parse --verify "$1^{commit}") ||
	{ echo "bench/ab.sh: $1: not a revision" >&2; exit 2; }
out=$(realpath -m "${2:-bench/results/ab}")
# shellcheck source=scripts/lib-tuning.sh
. "$PWD/scripts/lib-tuning.sh"
ibt_guest_tuning bench/ab.sh || exit 2

scripts/deps.sh
make -s all
rm -rf "$out"
mkdir -p "$out/mods"
tree=$(mktemp -d)
trap 'git worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"' EXIT
git worktree add -q --detach "$tree" "$base"
echo "bench/ab.sh: building the module at ${base:0:12}"
make -s -C "$tree" module >/dev/null
cp "$tree/kmod/ibtick.ko" "$out/mods/base.ko"
cp kmod/ibtick.ko "$out/mods/head.ko"
printf '{"base":"%s","head":"%s%s","rounds":%d,"n":%d,"kinds":"%s"}\n' \
	"$base" "$(git rev-parse HEAD)" "$(git diff --quiet HEAD -- kmod include || echo +dirty)" \
	"$rounds" "$n" "$kinds" >"$out/ab-head.json"
scripts/vm-run.sh -t $((600 + rounds * n / 10)) -o "$out" -- \
	env AB_ROUNDS="$rounds" AB_N="$n" AB_KINDS="$kinds" bench/guest-ab.sh
python3 bench/ab.py "$out" | tee "$out/summary.md"
rm -rf "$out/mods"	# built again from the revisions when wanted
# the VM's own files (dmesg.txt names this machine's paths on the kernel
# command line); output.log keeps what the guest printed
rm -f "$out"/{console.log,qemu.log,dmesg.txt,.vm-cmd,rc,tainted,timing,setup-error}
