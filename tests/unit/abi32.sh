#!/usr/bin/env bash
# The uapi structs are laid out alike for 32-bit programs: every struct
# and union the uapi headers (include/uapi/linux/*.h) define has the same
# size, members, offsets and holes compiled for i386 (-m32) as for x86_64,
# as pahole reads them from the DWARF of one object each (built with every
# type kept, used or not).  That is what a 32-bit program on a 64-bit
# kernel needs of the socket options, control messages, ring and netlink
# payloads it shares with the module, besides the ioctl pointer the module
# widens (ibt_compat_ioctl()); it is not all it needs (the mapping offsets
# of member feeds, <linux/ibtick.h>).  A u64 after a u32 with no explicit
# padding is what this catches (i386 aligns u64 to 4 bytes); the last
# check shows that the comparison sees such a struct.  pahole (dwarves)
# comes from scripts/deps.sh; gcc builds -m32 objects without
# gcc-multilib, as only the compiler runs and no 32-bit libc is needed.
#
#   abi32.sh
set -u
top=$(cd "$(dirname "$0")/../.." && pwd -P)
TAP_NAME=abi32
# shellcheck source=tests/unit/tap.sh
. "$top/tests/unit/tap.sh"
finish() {
	tap_end
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
	$cc -m"$1" -c -g -O0 -fno-eliminate-unused-debug-types -I"$top/include/uapi" ${ma:+-I/usr/include/$ma} -o "$3" "$2" 2>"$T/err" ||
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

for h in "$top"/include/uapi/linux/*.h; do
	echo "#include <linux/${h##*/}>"
done >"$T/abi.c"
ok=1
for b in 32 64; do
	build "$b" "$T/abi.c" "$T/abi$b.o" || ok=0
done
check "the uapi headers build for -m32 and -m64" "$ok" 1
((ok)) || finish
pahole --suppress_aligned_attribute "$T/abi32.o" >"$T/all32" 2>&1
pahole --suppress_aligned_attribute "$T/abi64.o" >"$T/all64" 2>&1
mapfile -t names < <(sed -n 's/^\(struct\|union\) \([a-z0-9_]*\) {$/\1 \2/p' "$T/all64")
# every definition in the headers, its brace on the line or the next
defs=$(cat "$top"/include/uapi/linux/*.h | grep -v '^[[:space:]]' |
	grep -cE '^(struct|union) [a-z0-9_]+ *(\{.*)?$')
check "pahole found every struct and union the headers define ($defs)" "${#names[@]}" "$defs"
check "all of them: i386 layouts == x86_64 layouts" "$(cat "$T/all32")" "$(cat "$T/all64")"
for s in "${names[@]}"; do
	check "$s: i386 layout == x86_64 layout" \
		"$(layouts "$T/abi32.o" "${s#* }")" "$(layouts "$T/abi64.o" "${s#* }")"
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
