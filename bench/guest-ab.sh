#!/usr/bin/env bash
# In the guest of bench/ab.sh: $RESULTS/mods/base.ko and head.ko, loaded in
# turn, AB_ROUNDS rounds of AB_N samples of each path in AB_KINDS (base
# first in odd rounds, head first in even ones), then a counted run of
# each; every row into $RESULTS/ab.json with its "mod" (and "round").
# bench/boot-ab.sh runs one module a boot: AB_MODS (default "base head")
# names the modules to run, AB_ROUND0 (default 0) is added to the round
# numbers, AB_COUNTED=0 skips the counted runs; rows are appended.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
export PATH="$PWD/user/preload:$PWD/user/ibtick:$PATH"
P=user/tools/ibtick-perf
R=$RESULTS
mods=${AB_MODS:-base head}
round0=${AB_ROUND0:-0}
touch "$R/ab.json"

# one MOD TAG ARGS...: load MOD, one ibtick-perf lat run, rows tagged, unload
one() {
	local m=$1 tag=$2
	shift 2
	insmod "$R/mods/$m.ko" || { echo "insmod $m failed"; return 1; }
	$P lat -j -k "$AB_KINDS" -c 1 -C 0 -L veth1 -I veth0 "$@" 239.9.0.1 7900 |
		sed "s/^{/{\"mod\":\"$m\",$tag/" >>"$R/ab.json" ||
		echo "$m $tag: ibtick-perf failed"
	rmmod ibtick || { echo "rmmod $m failed"; lsmod | grep ibtick; return 1; }
}

for ((r = 1; r <= AB_ROUNDS; r++)); do
	order=$mods
	((r % 2)) || order=$(printf '%s\n' $mods | tac | xargs)
	echo "round $((round0 + r)): $order"
	for m in $order; do
		one "$m" "\"round\":$((round0 + r))," -n "$AB_N" -w 500 || exit 1
	done
done
[[ ${AB_COUNTED:-1} == 0 ]] && exit 0
for m in $mods; do
	echo "counted: $m"
	one "$m" '"counted":1,' --counts -n 1000 -w 100 || exit 1
done
grep -c '"kind"' "$R/ab.json" | sed 's/$/ rows/'
