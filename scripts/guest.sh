#!/usr/bin/env bash
# guest.sh ARCH FLAVOUR VARIANT: build the kernel and the initramfs, boot
# once, judge the console.  Everything lands in $OUT/ARCH/ (console.log,
# results.tsv, parse.txt).  Exit status 0 when every result passed or
# skipped.  SLOW=F raises every timeout in the guest F times (slow hosts).
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: guest.sh ARCH FLAVOUR VARIANT}
flavour=${2:?}
variant=${3:?}
check_arch "$arch"
dir=${OUT}/${arch}
mkdir -p "$dir"

obj=$(kernel_obj "$arch" "$flavour" "$variant")
initrd=$("${TOP}/scripts/initramfs.sh" "$arch" "$obj")
log "booting $arch (console: $dir/console.log)"
start=$(date +%s)
rc=0
"${TOP}/scripts/boot.sh" "$arch" "$obj/$(arch_get "$arch" image)" "$initrd" \
	"$dir/console.log" ${APPEND:-} ${ONLY:+entrylab_only=$ONLY} \
	${SLOW:+entrylab_slow=$SLOW} || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 124 ] || log "QEMU exited with status $rc"
log "$arch guest ran for $(( $(date +%s) - start ))s"
echo "$obj" >"$dir/obj"
kunit=${CACHE}/src/${variant}/tools/testing/kunit
require=()
must=$(arch_get "$arch" boot_must)
if [ "$must" != - ]; then
	IFS=';' read -r -a pats <<<"$must"
	for p in "${pats[@]}"; do require+=(--require "$p"); done
fi
exec python3 "${TOP}/scripts/judge.py" --arch "$arch" --log "$dir/console.log" \
	--kunit "$kunit" --results "$dir/results.tsv" --report "$dir/parse.txt" \
	--expected "${TOP}/tests/expected.tbl" --required-tbl "${TOP}/tests/required.tbl" \
	--variant "$variant" \
	--config "$obj/.config" "${require[@]}" ${ONLY:+--partial}
