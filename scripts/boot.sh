#!/usr/bin/env bash
# boot.sh ARCH KERNEL INITRAMFS LOG [APPEND...]: boot one guest under QEMU
# (TCG) and save its console to LOG.  Exit status: 0 when the guest ended by
# itself, 124 when it was killed at BOOT_TIMEOUT seconds.  Judging the log
# is judge.py's job.  INTERACTIVE=1 (make shell): the console is the
# terminal, a copy goes to LOG, no timeout.
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: boot.sh ARCH KERNEL INITRAMFS LOG [APPEND...]}
kernel=${2:?}
initrd=${3:?}
logf=${4:?}
shift 4
check_arch "$arch"
qemu=$(arch_get "$arch" qemu)
need "$qemu" "$(arch_get "$arch" pkgs | cut -d, -f1)"
[ -f "$kernel" ] || die "no kernel image at $kernel"
[ -f "$initrd" ] || die "no initramfs at $initrd"

timeout=${BOOT_TIMEOUT:-900}
# panic=-1 turns a panic into a reboot, which -no-reboot turns into an exit.
extra=$(arch_get "$arch" cmdline)
[ "$extra" != - ] || extra=
append="console=$(arch_get "$arch" console) printk.time=0 panic=-1 $extra $*"
cmd=("$qemu" -M "$(arch_get "$arch" machine)" -cpu "$(arch_get "$arch" cpu)"
	-smp "${SMP:-2}" -m 1G -nographic -monitor none
	$(arch_get "$arch" qemu_extra) ${QEMU_EXTRA:-}
	-kernel "$kernel" -initrd "$initrd" -append "$append")
mkdir -p "$(dirname "$logf")"
printf '%s\n' "${cmd[*]}" >"$logf.cmd"
rc=0
if [ -n "${INTERACTIVE:-}" ]; then
	# QEMU puts the terminal (its standard input) in raw mode and restores it.
	"${cmd[@]}" 2>&1 | tee "$logf" || rc=${PIPESTATUS[0]}
	sed -i 's/\r$//' "$logf"
	exit "$rc"
fi
timeout --foreground -k 10 "$timeout" "${cmd[@]}" </dev/null >"$logf" 2>&1 || rc=$?
# Serial consoles end lines with CR LF.
sed -i 's/\r$//' "$logf"
if [ "$rc" = 124 ]; then
	echo "entry-lab: host: guest killed after ${timeout}s timeout" >>"$logf"
fi
exit "$rc"
