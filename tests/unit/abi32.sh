#!/usr/bin/env bash
# The ABI is the same for 32-bit programs: every struct of the uapi headers
# (include/uapi/linux/*.h) has the same size, members, offsets and holes
# compiled for i386 (-m32) as for x86_64, as pahole reads them from the
# DWARF of one object each.  A 32-bit program on a 64-bit kernel then needs
# nothing of the module but the pointer of an ioctl widened
# (ibt_compat_ioctl()): its socket options, control messages, ring and
# netlink payloads are laid out as a 64-bit one's.  A u64 after a u32 with
# no explicit padding is what this catches (i386 aligns u64 to 4 bytes);
# the last check shows that the comparison sees such a struct.  pahole
# (dwarves) comes from scripts/deps.sh; gcc builds -m32 objects without
# gcc-multilib, as only the compiler is needed and no 32-bit libc.
#
#   abi32.sh
set -u
top=$(cd "$(dirname "$0")/../.." && pwd -P)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

n=0 pass=0 fail=0
# check NAME ACTUAL EXPECTED
check() {
	n=$((n + 1))
	if [[ $2 == "$3" ]]; then
		pass=$((pass + 1))
		echo "ok $n - abi32: $1"
	else
		fail=$((fail + 1))
		echo "not ok $n - abi32: $1"
		diff <(echo "$3") <(echo "$2") | sed 's/^/# /'
	fi
}
finish() {
	echo "abi32: $pass passed, $fail failed, 0 skipped"
	((fail == 0))
	exit
}

cc=${CC:-cc}
ma=$($cc -print-multiarch 2>/dev/null)
if ! command -v pahole >/dev/null; then
	check "pahole installed (scripts/deps.sh)" missing present
	finish
fi

# build BITS SRC OBJ: SRC for -mBITS with DWARF (the uapi headers' asm/
# from the host's multiarch dir: they are the same for both)
build() {
	$cc -m"$1" -c -g -O0 -I"$top/include/uapi" ${ma:+-I/usr/include/$ma} -o "$3" "$2" 2>"$T/err" ||
		{ sed 's/^/# /' "$T/err"; return 1; }
}
# layouts OBJ NAME...: each struct as pahole prints it
layouts() {
	local o=$1 s
	shift
	for s in "$@"; do
		echo "== $s"
		pahole --suppress_aligned_attribute -C "$s" "$o" 2>&1
	done
}

mapfile -t names < <(sed -n 's/^struct \([a-z0-9_]*\) {.*/\1/p' "$top"/include/uapi/linux/*.h | sort -u)
check "the uapi headers declare structs" "$((${#names[@]} >= 10))" 1
{
	for h in "$top"/include/uapi/linux/*.h; do
		echo "#include <linux/${h##*/}>"
	done
	for s in "${names[@]}"; do
		echo "struct $s v_$s;"
	done
} >"$T/abi.c"
ok=1
for b in 32 64; do
	build "$b" "$T/abi.c" "$T/abi$b.o" || ok=0
done
check "the uapi headers build for -m32 and -m64" "$ok" 1
((ok)) || finish
layouts "$T/abi32.o" "${names[@]}" >"$T/l32"
layouts "$T/abi64.o" "${names[@]}" >"$T/l64"
check "pahole read every struct" "$(grep -c '^struct .* {$' "$T/l64")" "${#names[@]}"
for s in "${names[@]}"; do
	check "struct $s: i386 layout == x86_64 layout" \
		"$(sed -n "/^== $s\$/,/^== /p" "$T/l32")" "$(sed -n "/^== $s\$/,/^== /p" "$T/l64")"
done

# the comparison sees what it is for
cat >"$T/bad.c" <<'EOF'
#include <linux/types.h>
struct abi32_bad { __u32 a; __u64 b; };
struct abi32_bad v;
EOF
ok=1
for b in 32 64; do
	build "$b" "$T/bad.c" "$T/bad$b.o" || ok=0
done
check "a u64 after a u32 is laid out differently (the check can fail)" \
	"$( ((ok)) && [[ $(layouts "$T/bad32.o" abi32_bad) != "$(layouts "$T/bad64.o" abi32_bad)" ]] && echo differs)" \
	differs
finish
