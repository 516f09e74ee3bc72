# shellcheck shell=bash
#
# lib-tuning.sh - how a measuring guest (demo.sh, bench/run.sh, bench/ab.sh)
# is booted: the kernel command line a latency-tuned host would have.
# Source it, then call ibt_guest_tuning PROG; it adds to IBTICK_VM_APPEND
# (scripts/vm-run.sh passes that to every guest it boots).
#
#   CLOCK=tsc (default)   clocksource=tsc tsc=reliable: the TSC, as real
#                         hosts run.  The stock guest marks its TSC unstable
#                         and falls back to the emulated HPET, where every
#                         clock read is an emulated device access.
#   CLOCK=default         the guest's own choice (to see what that costs).
#   IDLE=poll (default)   idle=poll: an idle vCPU spins instead of halting,
#                         as a host tuned for latency runs with C-states off
#                         (tuned's latency profiles, cpu_dma_latency 0).
#                         Under TCG a halted vCPU is a QEMU thread asleep on
#                         the host, and waking it costs what a deep C-state's
#                         exit costs on hardware: a blocking recvmsg reader
#                         came out at 4.15x the verbs floor with halting
#                         vCPUs and 2.03x with idle=poll, epoll alike
#                         (bench/boot-ab.sh, bench/results/boot-idle).
#   IDLE=default          the guest halts idle vCPUs.

# ibt_guest_tuning PROG: check CLOCK and IDLE (PROG names the caller in the
# error) and export IBTICK_VM_APPEND with their boot options.
ibt_guest_tuning() {
	local prog=$1 add=
	case ${CLOCK:-tsc} in
	tsc) add="clocksource=tsc tsc=reliable" ;;
	default) ;;
	*) echo "$prog: CLOCK is tsc or default" >&2; return 2 ;;
	esac
	case ${IDLE:-poll} in
	poll) add="${add:+$add }idle=poll" ;;
	default) ;;
	*) echo "$prog: IDLE is poll or default" >&2; return 2 ;;
	esac
	[[ -z $add ]] || export IBTICK_VM_APPEND="${IBTICK_VM_APPEND:+$IBTICK_VM_APPEND }$add"
}
