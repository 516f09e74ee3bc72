#!/usr/bin/env bash
# Install what building and testing ibtick needs on Debian bookworm, with apt,
# idempotently: packages already present are not touched and apt is not even
# called when nothing is missing.  Run as root.
#
#   scripts/deps.sh          everything (build, KUnit, the QEMU bench)
set -euo pipefail

pkgs=(
	# build: module and userspace
	build-essential pkg-config kmod linux-headers-amd64
	libnl-3-dev libnl-genl-3-dev
	# the kernel's static checker over the module (make sparse)
	sparse
	# packaging: DKMS, and the Debian packages (tests/package/deb.sh)
	dkms dpkg-dev debhelper dh-dkms lintian
	# KUnit on UML from Debian's kernel source
	linux-source-6.1 flex bison bc python3 xz-utils
	# the QEMU bench and the ground truth the tests compare with
	qemu-system-x86 busybox-static cpio iproute2 rdma-core ibverbs-utils
	rdmacm-utils perftest sockperf util-linux procps strace
	# PNG copies of the latency histograms (optional)
	librsvg2-bin
	# the debug kernel (scripts/debug-kernel.sh) and its staging
	libelf-dev libssl-dev rsync
	# the ring protocol model (tests/model/run.sh)
	spin
	# pahole: the uapi structs' i386 and x86_64 layouts (tests/unit/abi32.sh)
	dwarves
	# the Wireshark dissector: its unit test reads prepared captures with
	# tshark; the VM test captures with tcpdump (user/wireshark/ibtick.lua)
	tshark tcpdump
	# the userspace fuzz targets (tests/fuzz/lib/run.sh): clang, its
	# libFuzzer/ASan/UBSan runtimes (only Recommended by clang-14), and
	# llvm-symbolizer for readable reports
	clang libclang-rt-14-dev llvm
)

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
		missing+=("$p")
	fi
done

if ((${#missing[@]} == 0)); then
	echo "deps: all ${#pkgs[@]} packages present"
	exit 0
fi
if ((EUID != 0)); then
	echo "deps: missing packages (${missing[*]}); run as root" >&2
	exit 1
fi
echo "deps: installing ${#missing[@]} packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# wireshark-common (under tshark) asks whether non-root users may capture;
# answer it beforehand: no, capture stays root's (the default)
if command -v debconf-set-selections >/dev/null; then
	echo "wireshark-common wireshark-common/install-setuid boolean false" |
		debconf-set-selections
fi
# a fresh machine has no package lists yet; refresh them once a day at most
stamp=/var/lib/apt/periodic/ibtick-update-stamp
if [[ ! -f $stamp ]] || [[ -n $(find "$stamp" -mmin +1440 2>/dev/null) ]]; then
	echo "deps: apt-get update"
	apt-get update -q -o Dpkg::Progress-Fancy=0
	mkdir -p "$(dirname "$stamp")" && touch "$stamp"
fi
apt-get install -y -q --no-install-recommends -o Dpkg::Progress-Fancy=0 \
	"${missing[@]}"
echo "deps: done"
