#!/usr/bin/env bash
# shell.sh ARCH FLAVOUR VARIANT: build what is missing, then boot the guest
# with a shell on its console: busybox, the suite in /tests (run-test NAME
# runs one program as make test does), debugfs and tracefs mounted.  Leaving
# the shell ends the guest (QEMU exits); Ctrl-A X quits QEMU at once.
# NOBUILD=1 boots the kernel built last.  The guest's files are in
# $OUT/shell/ARCH.
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: shell.sh ARCH FLAVOUR VARIANT}
flavour=${2:?}
variant=${3:?}
check_arch "$arch"
# Checked first: without a terminal QEMU's console would wait for input
# that never comes.
[ -t 0 ] && [ -t 1 ] ||
	die "make shell needs a terminal on its standard input and output (it runs an interactive shell in the guest); 'make run ARCH=$arch' runs the suite without one"

obj=$(kernel_obj "$arch" "$flavour" "$variant")
busybox=$(FETCH=no "${TOP}/scripts/busybox.sh" "$arch")
dir=${OUT}/shell/${arch}
initrd=$(OUT=${OUT}/shell BUSYBOX=$busybox "${TOP}/scripts/initramfs.sh" "$arch" "$obj")
# The guest's shell learns the terminal's size from the command line: a
# serial console cannot tell it.
read -r rows cols < <(stty size 2>/dev/null || echo "24 80")
log "booting $arch with a shell (leave it with 'exit', or Ctrl-A X)"
# mon:stdio: QEMU's Ctrl-A commands (X quits, C toggles its monitor).
QEMU_EXTRA="-serial mon:stdio ${QEMU_EXTRA:-}" INTERACTIVE=1 exec "${TOP}/scripts/boot.sh" "$arch" "$obj/$(arch_get "$arch" image)" \
	"$initrd" "$dir/console.log" quiet "entrylab_shell=$(arch_get "$arch" console)" \
	"entrylab_rows=$rows" "entrylab_cols=$cols"
