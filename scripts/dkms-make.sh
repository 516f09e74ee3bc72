#!/bin/sh
# DKMS build step for ibtick.ko (see dkms.conf).
# usage: dkms-make.sh KERNELVER KERNEL_SOURCE_DIR
#
# With MLNX_OFED installed, ib_core is OFED's, not the kernel's: build against
# the headers and Module.symvers OFED ships for that kernel, or the module
# fails to load with "disagrees about version of symbol".
set -eu
kver=$1
ksrc=$2
ofa=
for d in /usr/src/ofa_kernel/"$kver" /usr/src/ofa_kernel/"$(uname -m)"/"$kver"; do
	if [ -f "$d/Module.symvers" ]; then
		ofa=$d
		break
	fi
done
if [ -n "$ofa" ]; then
	echo "ibtick: building against MLNX_OFED ib_core in $ofa"
	exec make -C "$ksrc" M="$(pwd)" OFA_DIR="$ofa" modules
fi
echo "ibtick: building against the inbox ib_core of $kver"
exec make -C "$ksrc" M="$(pwd)" modules
