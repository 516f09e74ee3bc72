#!/usr/bin/env bash
# libFuzzer targets for the userspace parsers (see README.md here): build
# each with clang's libFuzzer, ASan and UBSan, seed its corpus, run it for a
# bounded number of inputs, one line each, then "libfuzz: N passed, N failed".
#
#   tests/fuzz/lib/run.sh [TARGET...]        fuzz_ring fuzz_cli fuzz_nlparse
#   tests/fuzz/lib/run.sh --repro TARGET FILE...
#                                           run TARGET on saved inputs
#   tests/fuzz/lib/run.sh --self-test [MUTANT...]
#                                           build against deliberately broken
#                                           copies of the sources: each
#                                           break must be found
#
# Environment:
#   FUZZ_RUNS=20000     inputs per target (default)
#   FUZZ_SECONDS=N      run each target N seconds instead of FUZZ_RUNS inputs
#   FUZZ_SEED=N         libFuzzer's -seed (default: a random one, printed)
#   FUZZ_TIMEOUT=10     seconds one input may take before it is a failure
#   FUZZ_CORPUS=DIR     keep each target's corpus in DIR/TARGET across runs
#                       (default: a fresh one, seeded, thrown away)
#   FUZZ_RESULTS=DIR    logs and failing inputs (default .check/libfuzz, or
#                       $IBTICK_LOGDIR/libfuzz)
#   FUZZ_KEEP=1         keep the build directory (binaries) and print it
#   CLANG=clang         the compiler; TMPDIR is honoured
#
# Exit status 0 if all passed, 1 if not, 4 ("# SKIP") when clang cannot
# build libFuzzer targets.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd -P)
top=$(cd "$here/../../.." && pwd -P)
cd "$top" || exit 1

CLANG=${CLANG:-clang}
all_targets=(fuzz_ring fuzz_cli fuzz_nlparse)
runs=${FUZZ_RUNS:-20000}
seconds=${FUZZ_SECONDS:-}
timeout=${FUZZ_TIMEOUT:-10}
results=${FUZZ_RESULTS:-${IBTICK_LOGDIR:-$top/.check}/libfuzz}
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)

# shellcheck disable=SC2054 # commas inside options, not between elements
CFLAGS=(-g -O1 -fsanitize=fuzzer,address,undefined
	-fno-sanitize-recover=undefined -fno-omit-frame-pointer
	-std=gnu11 -Wall -Wextra -Wno-missing-field-initializers
	-D_GNU_SOURCE "-DIBTICK_VERSION=\"${version:-fuzz}\"")
# nl.c runs on nl_stub.c's fake socket: these libnl calls are the stub's
NL_RENAME=(-Dnl_socket_alloc=fuzz_nl_socket_alloc -Dgenl_connect=fuzz_genl_connect
	   -Dgenl_ctrl_resolve=fuzz_genl_ctrl_resolve -Dnl_cb_alloc=fuzz_nl_cb_alloc)
CLI_SRCS=(user/ibtick/main.c user/ibtick/dev.c user/ibtick/nl.c
	  user/ibtick/feed.c user/ibtick/feedattr.c user/ibtick/arbattr.c
	  user/ibtick/sock.c user/ibtick/conn.c user/ibtick/rule.c
	  user/ibtick/stats.c user/ibtick/monitor.c user/ibtick/doctor.c
	  user/ibtick/doctor_checks.c user/ibtick/portctr.c
	  user/common/out.c user/common/names.c tests/fuzz/lib/nl_stub.c
	  tests/fuzz/lib/relay_stub.c)

# max_len per target: the ring image plus its script; argv; a reply script
declare -A max_len=([fuzz_ring]=8192 [fuzz_cli]=1024 [fuzz_nlparse]=4096)

# Deliberately broken sources, for --self-test:
#   NAME|TARGET|FILE|sed program|ERE the failure report must match
# The sed program must change FILE (else the mutant is stale: not ok).
mutants=(
	"ring-no-len-clamp|fuzz_ring|user/lib/libibtick.h|s/t->len = len < r->payload_max ? len : r->payload_max;/t->len = len;/|t\\.len [0-9]+ > payload_max|heap-buffer-overflow"
	"ring-no-size-check|fuzz_ring|user/lib/libibtick.c|s/if (need > len - h->slots_off) {/if (0) {/|accepted [0-9]+ slots|heap-buffer-overflow"
	"ring-lost-miscount|fuzz_ring|user/lib/libibtick.h|s/^\\tr->lost += n;/\\tr->lost += n - 1;/|lost"
	"ring-done-trusts-slot|fuzz_ring|user/lib/libibtick.h|s/if (seq == t->idx && r->cursor == t->idx) {/if (r->cursor == t->idx) {/|done\\(\\) accepted a slot overwritten"
	"cli-verb-missing|fuzz_cli|user/ibtick/main.c|s/if (c->argc == 0)/if (c->argc < 0)/|SEGV|null pointer"
	"cli-name-unterminated|fuzz_cli|user/ibtick/nl.c|s/nla_put_string(msg, req->name_attr, req->name)/nla_put(msg, req->name_attr, (int)strlen(req->name), req->name)/|malformed attributes"
	"nlparse-gid-unchecked|fuzz_nlparse|user/ibtick/dev.c|/\\[IBTICK_A_PORT_GID0\\][[:space:]]*=/d|inet_ntop|print_port"
)

usage() {
	sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit "${1:-0}"
}

mode=fuzz
case ${1:-} in
-h|--help) usage 0 ;;
--repro) mode=repro; shift ;;
--self-test) mode=selftest; shift ;;
-*) usage 2 >&2 ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/ibtick-libfuzz.XXXXXX") || exit 1
if [[ ${FUZZ_KEEP:-0} == 1 ]]; then
	echo "# build directory: $work"
else
	trap 'rm -rf "$work"' EXIT
fi

# ---- can clang build a libFuzzer target at all? ------------------------
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' >"$work/probe.c"
if ! command -v "$CLANG" >/dev/null 2>&1 ||
   ! "$CLANG" -fsanitize=fuzzer,address,undefined -o "$work/probe" "$work/probe.c" >"$work/probe.log" 2>&1; then
	echo "# SKIP clang not installed, or without libFuzzer (-fsanitize=fuzzer: clang and libclang-rt-14-dev; scripts/deps.sh)"
	exit 4
fi
NL_CFLAGS=$(pkg-config --cflags libnl-genl-3.0 2>/dev/null)
NL_LIBS=$(pkg-config --libs libnl-genl-3.0 2>/dev/null)
have_nl=1
[[ -n $NL_LIBS ]] || have_nl=0

# ---- building ----------------------------------------------------------

# build TARGET OUT [OVERRIDE]: sources from OVERRIDE/PATH when that exists
# (a mutant's copy), else from the tree.  Output in OUT.log.
build() {
	local t=$1 out=$2 ovr=${3:-} src obj objs=() inc=() ldflags=() f extra
	local -a srcs
	case $t in
	fuzz_ring) srcs=(tests/fuzz/lib/fuzz_ring.c user/lib/libibtick.c) ;;
	fuzz_cli) srcs=(tests/fuzz/lib/fuzz_cli.c "${CLI_SRCS[@]}")
		  # shellcheck disable=SC2054,SC2206 # one option; libnl's words
		  ldflags=(-Wl,--wrap=exit $NL_LIBS) ;;
	fuzz_nlparse) srcs=(tests/fuzz/lib/fuzz_nlparse.c "${CLI_SRCS[@]}")
		  # shellcheck disable=SC2206
		  ldflags=($NL_LIBS) ;;
	*) echo "unknown target $t" >"$out.log"; return 1 ;;
	esac
	if [[ -n $ovr ]]; then
		for f in include/uapi user/lib user/common user/ibtick; do
			[[ -d $ovr/$f ]] && inc+=("-I$ovr/$f")
		done
	fi
	inc+=(-Iinclude/uapi -Iinclude -Iuser/lib -Iuser/common)
	mkdir -p "$out.o"
	: >"$out.log"
	for f in "${srcs[@]}"; do
		src=$f
		[[ -n $ovr && -f $ovr/$f ]] && src=$ovr/$f
		obj=$out.o/$(basename "$f" .c).o
		extra=()
		case $f in
		user/ibtick/main.c) extra=(-Dmain=ibtick_main) ;;
		user/ibtick/*.c) extra=("${NL_RENAME[@]}") ;;
		esac
		# shellcheck disable=SC2086 # pkg-config's flags are words
		nice "$CLANG" "${CFLAGS[@]}" "${inc[@]}" $NL_CFLAGS "${extra[@]}" \
			-c -o "$obj" "$src" >>"$out.log" 2>&1 || return 1
		objs+=("$obj")
	done
	"$CLANG" -fsanitize=fuzzer,address,undefined -o "$out" "${objs[@]}" \
		"${ldflags[@]}" >>"$out.log" 2>&1
}

needs_nl() { [[ $1 != fuzz_ring ]]; }

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# ---- running -----------------------------------------------------------

# The first line that says what went wrong in libFuzzer output $1.
why() {
	grep -m1 -E '^(fuzz_[a-z]+: |nl_stub: )' "$1" ||
		grep -m1 -E '^SUMMARY: ' "$1" ||
		grep -m1 -E 'ERROR: libFuzzer: |runtime error: ' "$1" ||
		echo "exit status $2, no report (see $1)"
}

# fuzz TARGET BIN LOG [SECONDS]: fuzz, print nothing; status 0 when clean.
# Sets $nruns, $seed_used, $artifact.
fuzz() {
	local t=$1 bin=$2 log=$3 secs=${4:-} corpus seeds limit rc
	seeds=$work/$t.seeds
	rm -rf "$seeds"
	mkdir -p "$seeds"
	FUZZ_SEED_DIR=$seeds "$bin" -runs=0 >"$log.seeds" 2>&1
	[[ -d $here/corpus/$t ]] && cp "$here/corpus/$t"/* "$seeds/" 2>/dev/null
	if [[ -n ${FUZZ_CORPUS:-} ]]; then
		corpus=$FUZZ_CORPUS/$t
	else
		corpus=$work/$t.corpus
		rm -rf "$corpus"
	fi
	mkdir -p "$corpus"
	if [[ -n $secs ]]; then
		limit=(-max_total_time="$secs")
	else
		limit=(-runs="$runs")
	fi
	nice "$bin" "${limit[@]}" -max_len="${max_len[$t]}" -timeout="$timeout" \
		-rss_limit_mb=2048 -print_final_stats=1 \
		${FUZZ_SEED:+-seed="$FUZZ_SEED"} \
		-artifact_prefix="$results/$t-" "$corpus" "$seeds" >"$log" 2>&1
	rc=$?
	nruns=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -n 1)
	seed_used=$(sed -nE 's/^INFO: Seed: ([0-9]+).*/\1/p' "$log" | head -n 1)
	artifact=$(sed -nE 's/.*Test unit written to (.*)$/\1/p' "$log" | tail -n 1)
	return $rc
}

# The report around the failure, for the log reader.
excerpt() {
	grep -m1 -A14 -E '^(fuzz_[a-z]+: |nl_stub: )|^==[0-9]+==ERROR|runtime error: |ERROR: libFuzzer' "$1" |
		sed 's/^/#   /'
}

hexhead() {
	od -An -tx1 -N64 -v "$1" | sed 's/^ */#   /'
}

mkdir -p "$results"

if [[ $mode == repro ]]; then
	t=${1:?usage: run.sh --repro TARGET FILE...}
	shift
	(($#)) || { echo "usage: run.sh --repro TARGET FILE..." >&2; exit 2; }
	build "$t" "$work/$t" || { cat "$work/$t.log"; exit 1; }
	# libFuzzer saves a crashing input again: not into the tree
	"$work/$t" -artifact_prefix="$work/" "$@"
	exit $?
fi

pass=0
fail=0

if [[ $mode == selftest ]]; then
	secs=${FUZZ_SECONDS:-60}
	for m in "${mutants[@]}"; do
		IFS='|' read -r name t file prog expect <<<"$m"
		# the ERE may itself contain |: everything after field 4
		expect=${m#*|*|*|*|}
		if (($#)) && [[ " $* " != *" $name "* ]]; then
			continue
		fi
		if needs_nl "$t" && ((!have_nl)); then
			echo "ok - mutant $name # SKIP libnl-genl-3.0 not found"
			continue
		fi
		ovr=$work/mut-$name
		mkdir -p "$ovr/$(dirname "$file")"
		cp "$(dirname "$file")"/*.[ch] "$ovr/$(dirname "$file")/"
		sed -i -e "$prog" "$ovr/$file"
		if cmp -s "$file" "$ovr/$file"; then
			echo "not ok - mutant $name: the sed program no longer changes $file"
			fail=$((fail + 1))
			continue
		fi
		if ! build "$t" "$ovr/$t" "$ovr"; then
			echo "not ok - mutant $name: build failed ($ovr/$t.log)"
			sed 's/^/#   /' "$ovr/$t.log" | head -20
			fail=$((fail + 1))
			continue
		fi
		log=$results/mutant-$name.log
		t0=$SECONDS
		if fuzz "$t" "$ovr/$t" "$log" "$secs"; then
			echo "not ok - mutant $name: $t found nothing in ${nruns:-?} runs (${secs}s)"
			fail=$((fail + 1))
		elif grep -qE -- "$expect" "$log"; then
			echo "ok - mutant $name: $t found it after ${nruns:-?} runs, $((SECONDS - t0))s: $(why "$log" 1)"
			pass=$((pass + 1))
		else
			echo "not ok - mutant $name: $t failed, but not as expected (/$expect/): $(why "$log" 1)"
			fail=$((fail + 1))
		fi
		[[ -n ${artifact:-} ]] && rm -f "$artifact"	# a mutant's, not a finding
	done
	echo "libfuzz-selftest: $pass passed, $fail failed"
	((fail == 0))
	exit $?
fi

targets=("$@")
((${#targets[@]})) || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
	if [[ " ${all_targets[*]} " != *" $t "* ]]; then
		echo "not ok - $t: no such target (${all_targets[*]})"
		fail=$((fail + 1))
		continue
	fi
	if needs_nl "$t" && ((!have_nl)); then
		echo "ok - $t # SKIP libnl-genl-3.0 not found (pkg-config)"
		continue
	fi
	t0=$SECONDS
	if ! build "$t" "$work/$t"; then
		echo "not ok - $t: build failed"
		sed 's/^/#   /' "$work/$t.log" | head -30
		fail=$((fail + 1))
		continue
	fi
	tb=$((SECONDS - t0))
	log=$results/$t.log
	if fuzz "$t" "$work/$t" "$log" "$seconds"; then
		echo "ok - $t: ${nruns:-?} runs (build ${tb}s, fuzz $((SECONDS - t0 - tb))s, seed ${seed_used:-?})"
		pass=$((pass + 1))
	else
		rc=$?
		echo "not ok - $t: $(why "$log" "$rc") (after ${nruns:-?} runs, seed ${seed_used:-?})"
		if [[ -n ${artifact:-} && -f $artifact ]]; then
			echo "#   input: $artifact ($(stat -c %s "$artifact") bytes); first 64 bytes:"
			hexhead "$artifact"
			echo "#   reproduce: tests/fuzz/lib/run.sh --repro $t $artifact"
		fi
		echo "#   log: $log"
		excerpt "$log"
		fail=$((fail + 1))
	fi
done
echo "libfuzz: $pass passed, $fail failed"
((fail == 0))
