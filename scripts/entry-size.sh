#!/usr/bin/env bash
# entry-size.sh ARCH OBJ: size of the architecture's own syscall entry code
# in the kernel built in OBJ: source lines of the files in arch.tbl's
# "entry" column, and text bytes of the syscall entry/exit symbols in vmlinux
# (generic ones included, so that moving code into kernel/entry/ shows; the
# "arch_text" line counts only the symbols defined outside kernel/entry/).
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: entry-size.sh ARCH OBJ}
obj=${2:?}
check_arch "$arch"
eval "kmake=($(cat "$obj/kmake.args"))"
src=${kmake[3]}
lines=0
for f in $(arch_get "$arch" entry | tr , ' '); do
	[ -f "$src/$f" ] && lines=$((lines + $(wc -l <"$src/$f")))
done
echo "lines	$lines"
# Syscall entry and exit, arch and generic, as the kernel names them.
re='^(el0_svc(_compat)?|do_el0_svc(_compat)?|el0_svc_common|invoke_syscall|syscall_trace_(enter|exit)|do_notify_resume|report_syscall.*|syscall_(enter_from|exit_to)_user_mode.*|exit_to_user_mode.*|syscall_exit_work|syscall_user_dispatch|do_syscall_64|do_int80_.*|(__)?do_fast_syscall_32|do_SYSENTER_32|entry_SYSCALL_64.*|el0t_64_sync_handler|el0t_32_sync_handler)$'
nm=nm pkg=binutils
case $arch in
riscv64)
	# do_trap_ecall_u (arch/riscv/kernel/traps.c), reached from the
	# exception vector that every trap shares (entry.S's handle_exception)
	re=${re%)\$}'|do_trap_ecall_u)$' ;;
s390x)
	# system_call (arch/s390/kernel/entry.S), __do_syscall and
	# do_syscall (arch/s390/kernel/syscall.c)
	re=${re%)\$}'|system_call|(__)?do_syscall)$' ;;
esac
case $arch in
riscv64 | s390x)
	# The cross binutils' nm (the host's reads these ELF files only as
	# generic ones).
	nm=$(arch_get "$arch" cross)nm
	pkg=binutils-${nm%-nm} ;;
esac
need "$nm" "$pkg"
# What kernel/entry/ defines is the generic share; the rest is the arch's own.
generic=" "
for o in "$obj"/kernel/entry/*.o; do
	[ -f "$o" ] && generic+="$("$nm" "$o" | awk '$2 ~ /^[tT]$/ { printf "%s ", $3 }')"
done
"$nm" -S --size-sort "$obj/vmlinux" | grep -E "^[0-9a-f]+ [0-9a-f]+ [tT] " |
	while read -r _ size _ sym; do
		if [[ $sym =~ $re ]]; then
			owner=arch
			[[ $generic == *" $sym "* ]] && owner=generic
			printf 'sym\t%s\t%d\t%s\n' "$sym" $((16#$size)) "$owner"
		fi
	done | sort -k2 | awk -F'\t' '{ print; sum += $3; if ($4 == "arch") own += $3 }
		END { printf "text\t%d\narch_text\t%d\n", sum, own }'
