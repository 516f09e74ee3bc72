// SPDX-License-Identifier: GPL-2.0-only
/*
 * mark: run in the guest to have insncount.so (QEMU plugin) note the
 * instruction counts at this moment.  mark() is placed at a fixed address
 * (the link puts section .mark at 0x5e5f0000, see bench/insn-count.sh)
 * that no other program's code uses: the plugin watches that address.
 */
__attribute__((section(".mark"), noinline)) void mark(void);

__attribute__((section(".mark"), noinline)) void mark(void)
{
	__asm__ volatile("nop");
}

int main(void)
{
	mark();
	return 0;
}
