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

# boot_to_end ARCH OBJ INITRD DIR WHAT [KERNEL ARGS]: boot, and fail with the
# reason unless the guest's init reached its end.
boot_to_end() {
	local arch=$1 obj=$2 initrd=$3 d=$4 what=$5
	shift 5
	"${TOP}/scripts/boot.sh" "$arch" "$obj/$(arch_get "$arch" image)" "$initrd" \
		"$d/console.log" "$@" && grep -q '^entry-lab: done' "$d/console.log" ||
		die "$arch $what guest did not finish (see $d/console.log)"
}

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
		boot_to_end "$arch" "$obj" "$initrd" "$d" "$variant bench" nokaslr
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

# The rseq statistics: bench/rseq_stats.c's workload on debug kernels (the
# ones with CONFIG_RSEQ_STATS), the series up to the patch that adds the
# statistics ("before", in a tree of its own: a later patch may change
# headers that every file includes) and the whole series ("after", the
# kernel make test builds).
run_rseq_stats() {
	local arch=$1 when=$2 upto=$3 tag= obj initrd d
	d=$bdir/rseqstats-$when-$arch
	[ "$when" = after ] || [ "$upto" -eq "$total" ] || tag=upto$upto
	obj=$(TREE_TAG=$tag SERIES_UPTO=$upto "${TOP}/scripts/build.sh" "$arch" debug series)
	initrd=$(OUT=$d SUITE=rseqstats "${TOP}/scripts/initramfs.sh" "$arch" "$obj")
	SMP=2 boot_to_end "$arch" "$obj" "$initrd" "$d" "rseq statistics"
	grep -o 'rseq-stats [a-z_]* .*' "$d/console.log" >"$bdir/rseqstats-$when-$arch.txt" ||
		die "$arch: no rseq statistics: $(grep -o 'rseq-stats: .*' "$d/console.log" ||
			echo "see $d/console.log")"
}

# The first patch that adds CONFIG_RSEQ_STATS; none: no statistics table.
stats_at=0 total=0
while read -r p; do
	total=$((total + 1))
	[ "$stats_at" -gt 0 ] || ! grep -qxF '+config RSEQ_STATS' "$p" || stats_at=$total
done < <(series_files)
rm -f "$bdir"/rseqstats-*.txt
if [ "$stats_at" -eq 0 ]; then
	log "no patch adds CONFIG_RSEQ_STATS: no rseq statistics"
else
	for arch in "$@"; do
		run_rseq_stats "$arch" before "$stats_at"
		# With nothing after the statistics patch, measure it once.
		if [ "$stats_at" -eq "$total" ]; then
			cp "$bdir/rseqstats-before-$arch.txt" "$bdir/rseqstats-after-$arch.txt"
		else
			run_rseq_stats "$arch" after "$total"
		fi
	done
fi

python3 "${TOP}/bench/table.py" "$bdir" "$@" >"$bdir/bench.md"
cat "$bdir/bench.md"
