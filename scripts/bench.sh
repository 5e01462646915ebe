#!/usr/bin/env bash
# bench.sh ARCH...: the entry-path cost, base kernel against the series.
#
# Both kernels are built with the same production-like config (prod), booted
# under TCG with -icount shift=0,sleep=off and the project's TCG plugin
# (bench/insn_count.c), which counts guest instructions between two marker
# instructions that bench/bench.c executes around N operations of each
# scenario.  Instruction counts are exact, so base and series compare without
# noise.  Writes $OUT/bench/bench.md and prints it.
. "$(dirname "$0")/lib.sh"

[ "$#" -gt 0 ] || die "usage: bench.sh ARCH..."
for arch in "$@"; do check_arch "$arch"; done
bdir=${OUT}/bench
mkdir -p "$bdir"

# The plugin runs inside QEMU on the host.
plugin=$bdir/insn_count.so
if [ ! "$plugin" -nt "${TOP}/bench/insn_count.c" ]; then
	cc -shared -fPIC -O2 -Wall -Werror -o "$plugin" "${TOP}/bench/insn_count.c" ||
		die "the TCG plugin does not build"
fi

# run_bench ARCH VARIANT SMP: boot once, print "scenario ops user kernel" lines.
run_bench() {
	local arch=$1 variant=$2 smp=$3 obj initrd d
	d=$bdir/$variant-$arch-smp$smp
	obj=$("${TOP}/scripts/build.sh" "$arch" prod "$variant")
	initrd=$(OUT=$d SUITE=bench BENCH_SMP=$smp "${TOP}/scripts/initramfs.sh" "$arch" "$obj")
	rm -f "$d/plugin.log"
	# Exact and repeatable: one host thread for all vCPUs (-icount), a
	# fixed seed and virtual clock, no NIC, no KASLR.
	SMP=$smp QEMU_EXTRA="-icount shift=0,sleep=off -seed 1 -rtc base=2025-01-01T00:00:00,clock=vm
		-nic none -plugin $plugin -d plugin -D $d/plugin.log" \
		"${TOP}/scripts/boot.sh" "$arch" "$obj/$(arch_get "$arch" image)" "$initrd" \
		"$d/console.log" nokaslr || die "$arch $variant bench guest did not finish (see $d/console.log)"
	grep -q '^entry-lab: done' "$d/console.log" ||
		die "$arch $variant bench guest did not finish (see $d/console.log)"
	python3 "${TOP}/bench/collect.py" "$d/console.log" "$d/plugin.log" \
		"$([ "$smp" = 1 ] || echo " (-smp $smp)")" >"$d/counts.tsv" ||
		die "cannot match the plugin counts to the scenarios in $d"
	cat "$d/counts.tsv"
}

# An empty series is the base kernel itself: measure it once.
variants="base series"
[ -n "$(series_files)" ] || variants=base
for arch in "$@"; do
	for variant in $variants; do
		{ run_bench "$arch" "$variant" 1; run_bench "$arch" "$variant" 2; } \
			>"$bdir/$variant-$arch.tsv"
		"${TOP}/scripts/entry-size.sh" "$arch" "$(obj_dir "$arch" prod "$variant")" \
			>"$bdir/$variant-$arch.size"
	done
	if [ "$variants" = base ]; then
		cp "$bdir/base-$arch.tsv" "$bdir/series-$arch.tsv"
		cp "$bdir/base-$arch.size" "$bdir/series-$arch.size"
	fi
done
python3 "${TOP}/bench/table.py" "$bdir" "$@" >"$bdir/bench.md"
cat "$bdir/bench.md"
