#!/usr/bin/env bash
# Runs inside the bench guest (see demo.sh): load ibtick and show the devices
# it found, next to what rdma(8) says about the same ports.
set -euo pipefail
[[ ${IBTICK_GUEST:-} == 1 ]] || { echo "demo-guest.sh runs inside the bench (scripts/demo.sh)" >&2; exit 2; }
ibtick=user/ibtick/ibtick

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "insmod kmod/ibtick.ko"
insmod kmod/ibtick.ko
dmesg | grep 'ibtick:' | tail -n 1

step "rdma link (ground truth)"
rdma link show

step "ibtick dev show"
"$ibtick" dev show

step "ibtick -s dev show rxe0   (with port event counters)"
"$ibtick" -s dev show rxe0

step "ibtick -p dev show rxe1   (JSON for scripts)"
"$ibtick" -p dev show rxe1

step "a refused request: the kernel's extack, the attribute it names, exit 1"
"$ibtick" dev show mlx5_9 || echo "(exit status $?)"

step "hot remove: rdma link delete rxe1, then add it back"
rdma link delete rxe1
"$ibtick" dev show
rdma link add rxe1 type rxe netdev veth1
"$ibtick" dev show rxe1

step "a feed: publisher on rxe1 (veth1) at 2000 ticks/s, two subscribers on rxe0 (veth0), 10000 ticks"
# the slow reader binds first: it creates the feed with a 64-slot ring
user/tools/ibtick-sub -i veth0 -n 10000 -t 5 -S 64 -d 2000 239.5.5.5 9001 >"$RESULTS/sub2" 2>"$RESULTS/sub2.err" &
sleep 1
user/tools/ibtick-sub -i veth0 -n 10000 -t 5 239.5.5.5 9001 >"$RESULTS/sub1" 2>"$RESULTS/sub1.err" &
sleep 1
user/tools/ibtick-pub -i veth1 -n 10000 -r 2000 239.5.5.5 9001
wait
echo "fast subscriber:           $(cat "$RESULTS/sub1")"
echo "slow subscriber (lapped):  $(cat "$RESULTS/sub2")"
echo "(delivered + lost == feed_rx for each: every tick is delivered or counted lost)"

step "rmmod ibtick"
rmmod ibtick
echo "done: the module loaded, reported both Soft-RoCE ports, survived a hot remove,"
echo "      carried a feed over UD multicast and unloaded."
