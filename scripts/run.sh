#!/usr/bin/env bash
# run.sh ARCH FLAVOUR VARIANT: build (if needed) and boot one architecture,
# then print a short report for a human.
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: run.sh ARCH FLAVOUR VARIANT}
flavour=${2:?}
variant=${3:?}
check_arch "$arch"
dir=${OUT}/${arch}
rm -f "$dir/results.tsv"
rc=0
"${TOP}/scripts/guest.sh" "$arch" "$flavour" "$variant" || rc=$?
[ -s "$dir/results.tsv" ] || die "$arch: build or boot did not complete (see above)"
obj=$(cat "$dir/obj")

# yn OPTION...: yes if any OPTION is set (the base has GENERIC_ENTRY alone
# where the series splits it into GENERIC_IRQ_ENTRY and GENERIC_SYSCALL).
yn() {
	local o
	for o in "$@"; do
		grep -q "^CONFIG_$o=y" "$obj/.config" && { echo yes; return; }
	done
	echo no
}
release=$(sed -n 's/^entry-lab: userspace start \([^ ]*\).*/\1/p' "$dir/console.log")
echo
echo "== $arch: Linux ${release:-?} ($variant, $flavour config, ${TOOLCHAIN:-llvm})"
if [ "$variant" = series ] && [ -n "$(series_files)" ]; then
	echo "Patches applied:"
	series_files | xargs -n1 basename | sed 's/^/  /'
else
	echo "Patches applied: none (the base ${BASE_PKG} ${BASE_VERSION})"
fi
echo "Entry features:"
printf '  %-44s %s\n' \
	"generic interrupt entry (GENERIC_IRQ_ENTRY)" "$(yn GENERIC_IRQ_ENTRY GENERIC_ENTRY)" \
	"generic syscall entry (GENERIC_SYSCALL)" "$(yn GENERIC_SYSCALL GENERIC_ENTRY)" \
	"seccomp filters (SECCOMP_FILTER)" "$(yn SECCOMP_FILTER)" \
	"rseq (RSEQ)" "$(yn RSEQ)" \
	"syscall user dispatch" "$(yn GENERIC_SYSCALL GENERIC_ENTRY)" \
	"audit syscalls (AUDITSYSCALL)" "$(yn AUDITSYSCALL)" \
	"forced context tracking" "$(yn CONTEXT_TRACKING_USER_FORCE)" \
	"lockdep (PROVE_LOCKING)" "$(yn PROVE_LOCKING)"
echo "Tests (details: $dir/results.tsv, console: $dir/console.log):"
summarize "$arch"
exit "$rc"
