#!/usr/bin/env bash
# ibtick-perf's command line as a table of {exit status, arguments, text}:
# perftest's -d DEV -i PORT -x GID_INDEX, resolved to a netdev in a prepared
# sysfs tree (IBTICK_SYSFS), -L/--netdev, arb's rails and paths, and each
# bad combination's message.  Nothing here needs the module: a good command line ends at
# "the ibtick module is not loaded" (exit 1); where the module is loaded
# those cases are skipped (they would start a measurement).
#
#   perf_args.sh PATH_TO_IBTICK_PERF
set -u
bin=${1:?usage: perf_args.sh PATH_TO_IBTICK_PERF}

t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
# rxe0: RoCE on veth0, GID index 1 a VLAN's (veth0.5); mlx4_0: InfiniBand,
# IPoIB ib0 on port 1
mkdir -p "$t/class/infiniband/rxe0/ports/1/gid_attrs/ndevs" \
	"$t/class/infiniband/mlx4_0/ports/1" "$t/class/net/ib0/device/infiniband/mlx4_0"
echo Ethernet >"$t/class/infiniband/rxe0/ports/1/link_layer"
echo veth0 >"$t/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0"
echo veth0.5 >"$t/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/1"
echo InfiniBand >"$t/class/infiniband/mlx4_0/ports/1/link_layer"
echo 0 >"$t/class/net/ib0/dev_port"
export IBTICK_SYSFS=$t

G="239.1.1.1 7000"
# status|arguments|what the output must contain (optional)
cases=(
	"2|lat -i veth0 $G|-i is the RDMA device's port number, as perftest's (-d DEV -i PORT); a netdev is -L veth0"
	"2|lat -d rxe0 -L veth0 $G|this side is -L IF or -d DEV [-i PORT] [-x INDEX], not both"
	"2|lat -L veth0 -i 1 $G|-i and -x go with -d DEV"
	"2|lat --netdev veth0 --gid-index 1 $G|-i and -x go with -d DEV"
	"2|lat -d nosuch0 $G|-d nosuch0 -i 1 -x 0: no RDMA device nosuch0"
	"2|lat -d rxe0 -i 2 $G|-d rxe0 -i 2 -x 0: rxe0 has no port 2"
	"2|lat -d rxe0 -i 0 $G|'0': want a number in [1, 255]"
	"2|lat -d rxe0 -x 2 $G|-d rxe0 -i 1 -x 2: rxe0 port 1 has no netdev at GID index 2"
	"2|lat -d rxe0 -x -1 $G|'-1': want a number in [0, 65535]"
	"2|lat -d mlx4_0 -x 1 $G|its GIDs have no netdev"
	"2|lat $G|Usage:"
	"2|lat -d rxe0 239.1.1.1|Usage:"
	"2|oneway -d rxe0 $G|oneway needs -I"
	"2|oneway --ib-dev rxe0 --ib-port 1 $G|-d rxe0 -i 1 -x 0: netdev veth0"
	"2|lat -h|-L IF       --netdev:"
	"2|lat --help|-x INDEX    --gid-index:"
	"2|lat --help|--peer-rail-b IF  arb:"
	# arb: both rails' netdevs on both sides, its own paths
	"2|arb -L veth0 $G|arb needs both rails' netdevs on both sides: -I, --rail-b, --peer-rail-b"
	"2|arb -L veth0 -I veth1 --rail-b veth2 $G|arb needs both rails' netdevs on both sides"
	"2|arb -L veth0 -I veth1 --peer-rail-b veth3 $G|arb needs both rails' netdevs on both sides"
	"2|lat -L veth0 -I veth1 --rail-b veth2 $G|--rail-b and --peer-rail-b are for arb"
	"2|fanout -L veth0 -I veth1 --peer-rail-b veth3 $G|--rail-b and --peer-rail-b are for arb"
	"2|arb -L veth0 -I veth1 --rail-b veth2 --peer-rail-b veth3 -k arb,mapped $G|Usage:"
	"2|arb -L veth0 -I veth1 --rail-b veth2 --peer-rail-b veth3 -k arb,arb $G|Usage:"
	"2|lat -L veth0 -I veth1 -k rail-a $G|Usage:"
	"2|arb -L veth0 -I veth1 --rail-b veth2 --peer-rail-b veth3 -B 0 $G|arb takes no -a, -e, -B, -H, --compare or --counts"
	"2|arb -L veth0 -I veth1 --rail-b veth2 --peer-rail-b veth3 --counts $G|arb takes no"
	"2|arb -L veth0 -I veth1 --rail-b veth2 --peer-rail-b veth3 -e $G|arb takes no"
	"2|oneway -L veth0 -I veth1 --raw x $G|are for lat (--raw: and arb)"
	# two hosts: --peer (the echo is the other host's lat -e)
	"2|lat -L veth0 -I veth1 --peer 10.99.0.1 $G|--peer IPV4 is for lat, with neither -I, -e nor --compare"
	"2|lat -L veth0 -e --peer 10.99.0.1 $G|--peer IPV4 is for lat, with neither"
	"2|lat -L veth0 --peer 10.99.0.1 --compare $G|--peer IPV4 is for lat, with neither"
	"2|lat -L veth0 --peer 10.99.0.300 $G|--peer IPV4 is for lat"
	"2|lat -L veth0 --peer rxe0 $G|--peer IPV4 is for lat"
	"2|oneway -L veth0 --peer 10.99.0.1 $G|--peer IPV4 is for lat"
	"2|lat -L veth0 --peer 10.99.0.1 -k mapped,floor $G|several reader kinds are for lat with -I"
	"2|lat -L veth0 -k floor $G|-k floor is for lat with -I, --peer or -e"
	"2|lat --help|--peer IPV4 lat:"
	"2|lat -L veth0 -I veth1 -k busy --busy-us 1000001 $G|'1000001': want a number in [0, 1000000]"
	"2|lat --help|--busy-us US  busy, busy-prefer, spin-1g, run-spin and inet-run-spin readers:"
	# sockperf's layout (one group both ways) and our own AF_INET ping-pong
	"2|lat -L veth0 -k inet-run-spin $G|-k inet-run-spin is for lat with -I, --peer or -e"
	"2|oneway -L veth0 -I veth1 -k spin-1g $G|-k spin-1g is for lat"
	# KIND-ev: the spinning paths that busy-poll, without it, in the same run
	"2|lat -L veth0 -I veth1 -k mapped-ev $G|Usage:"
	"2|lat -L veth0 -I veth1 -k recvmsg-1g-ev $G|Usage:"
	"2|lat -L veth0 -I veth1 -k spin-1g-ev,spin-1g-ev $G|Usage:"
	"2|lat -L veth0 -I veth1 -k spin-1g-e $G|Usage:"
	"2|lat -L veth0 -I veth1 -k -ev $G|Usage:"
	"2|oneway -L veth0 -I veth1 -k spin-1g-ev $G|-k spin-1g-ev is for lat"
	"2|lat -L veth0 -k run-spin-ev $G|-k run-spin-ev is for lat with -I, --peer or -e"
	"2|lat --help|spin-1g-ev,"
	"2|_udppp pong spin 10.0.0.1 239.1.1.1 7000 64 10 0|Usage:"
	"2|_udppp ping spin 10.0.0.1 239.1.1.1 7000 64 10 0|Usage:"
	"2|_udppp echo spin 10.0.0.1 239.1.1.1 7000 64 10 0 x|Usage:"
	"2|_udppp echo spinning 10.0.0.1 239.1.1.1 7000 64 10 0|Usage:"
	"2|_udppp ping spin 10.0.0.1 239.1.1.1 7000 8 10 0 x|'8': want a number in [16, 4096]"
	"2|lat -L veth0 -I veth1 239.1.1.1 65408|'65408': want a number in [1, 65407]"
	"2|lat -L veth0 -I veth1 -k busy-prefer --prefer-defer 100001 $G|'100001': want a number in [0, 100000]"
	"2|lat --help|--prefer-defer US  busy-prefer reads feeds made for it"
)
if [[ -d /sys/module/ibtick ]]; then
	echo "# the ibtick module is loaded: good command lines not run (they would measure)"
	skip=14
else
	skip=0
	cases+=(
		"1|lat -d rxe0 $G|-d rxe0 -i 1 -x 0: netdev veth0"
		"1|lat -d rxe0 -i 1 -x 1 -I veth1 $G|-d rxe0 -i 1 -x 1: netdev veth0.5"
		"1|lat --ib-dev mlx4_0 --ib-port 1 --gid-index 0 $G|-d mlx4_0 -i 1 -x 0: netdev ib0"
		"1|rate -d rxe0 -I veth1 $G|the ibtick module is not loaded"
		"1|lat -L veth0 -I veth1 $G|the ibtick module is not loaded"
		"1|lat -L veth0 -I veth1 -k busy-prefer --busy-us 2000 $G|the ibtick module is not loaded"
		"1|lat -L veth0 --peer 10.99.0.1 -k floor $G|the ibtick module is not loaded"
		"1|lat -L veth0 -e -k udp-spin $G|the ibtick module is not loaded"
		"1|lat -L veth0 -I veth1 -k spin-1g,recvmsg-1g,inet,inet-run $G|the ibtick module is not loaded"
		"1|lat -L veth0 -I veth1 -k spin-1g,spin-1g-ev,inet-run-spin-ev,run-spin-ev $G|the ibtick module is not loaded"
		"1|fanout --netdev veth0 --peer-netdev veth1 $G|the ibtick module is not loaded"
		"1|arb -L veth0 -I veth1 --rail-b veth2 --peer-rail-b veth3 $G|the ibtick module is not loaded"
		"1|arb -d rxe0 -I veth1 --rail-b veth2 --peer-rail-b veth3 -k arb-cost,rail-a-cost,rail-a,arb -r 5000 --raw x $G|the ibtick module is not loaded"
		"1|arb -L veth0 -I veth1 --rail-b veth2 --peer-rail-b veth3 -k rail-a-b,arb $G|the ibtick module is not loaded"
	)
fi

pass=0
fail=0
for c in "${cases[@]}"; do
	IFS='|' read -r want args expect <<<"$c"
	# shellcheck disable=SC2086 # word splitting of the arguments is wanted
	out=$("$bin" $args 2>&1)
	got=$?
	if [[ $got == "$want" && ( -z $expect || $out == *"$expect"* ) ]]; then
		pass=$((pass + 1))
		echo "ok - ibtick-perf $args -> $got"
	else
		fail=$((fail + 1))
		echo "not ok - ibtick-perf $args -> $got (want $want${expect:+, output containing \"$expect\"})"
		echo "$out" | head -5 | sed 's/^/    /'
	fi
done
echo "perf_args: $pass passed, $fail failed, $skip skipped"
((fail == 0))
