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

# s390x_text OBJ: sets text_lo, text_hi and text_start: the s390x kernel's
# code as the plugin counts it, from the module area (MODULES_LEN, 2 GiB,
# below the image) to _etext, and where _stext is: System.map's link
# addresses (the image is linked at 0) plus the base the kernel is mapped
# at with KASLR off (CONFIG_KERNEL_IMAGE_BASE).  bench/insn_count.c
# explains why.
s390x_text() {
	local obj=$1 base stext etext
	base=$(sed -n 's/^CONFIG_KERNEL_IMAGE_BASE=//p' "$obj/.config")
	stext=$(awk '$3 == "_stext" { print $1; exit }' "$obj/System.map")
	etext=$(awk '$3 == "_etext" { print $1; exit }' "$obj/System.map")
	[ -n "$base" ] && [ -n "$stext" ] && [ -n "$etext" ] ||
		die "s390x: no CONFIG_KERNEL_IMAGE_BASE in $obj/.config" \
			"or no _stext/_etext in $obj/System.map"
	text_lo=$((base - (1 << 31)))
	text_hi=$((base + 16#$etext))
	text_start=$((base + 16#$stext))
}

# OpenSBI, riscv64's M-mode firmware, runs at physical addresses: QEMU's
# virt machine loads it at the start of RAM and the kernel 2 MiB above.
riscv64_fw_lo=0x80000000
riscv64_fw_hi=0x80200000

# plugin_args ARCH OBJ: sets pargs, the plugin's kernel ranges besides its
# top-bit rule (",kernel=LO-HI"...).
plugin_args() {
	pargs=
	case $1 in
	riscv64) pargs=",kernel=$riscv64_fw_lo-$riscv64_fw_hi" ;;
	s390x)
		s390x_text "$2"
		pargs=$(printf ',kernel=%#x-%#x' "$text_lo" "$text_hi") ;;
	esac
}

# check_layout ARCH OBJ CONSOLE: the guest had its code where plugin_args
# assumed: s390x's kernel text at the base and the vDSO outside the range
# (bench/bench.c reports both); riscv64's OpenSBI inside its range (its
# boot banner).
check_layout() {
	local arch=$1 obj=$2 log=$3 st v0 v1 n=0 fw size hex='\(0x[0-9a-f]*\)'
	case $arch in
	s390x)
		s390x_text "$obj"
		while read -r st v0 v1; do
			n=$((n + 1))
			[ $((st)) = "$text_start" ] ||
				die "s390x: the guest's kernel text starts at $st," \
					"not at $(printf %#x "$text_start") (see $log)"
			[ $((v1)) -le "$text_lo" ] || [ $((v0)) -ge "$text_hi" ] ||
				die "s390x: the vDSO ($v0-$v1) lies in the kernel range (see $log)"
		done < <(sed -n "s/.*# layout: kernel _stext $hex, vdso $hex-$hex\$/\\1 \\2 \\3/p" "$log")
		[ "$n" -gt 0 ] || die "s390x: bench reported no layout (see $log)"
		;;
	riscv64)
		fw=$(sed -n 's/^Firmware Base *: *\(0x[0-9a-fA-F]*\).*/\1/p' "$log" | head -n 1)
		size=$(sed -n 's/^Firmware Size *: *\([0-9]*\) KB.*/\1/p' "$log" | head -n 1)
		if [ -z "$fw" ] || [ -z "$size" ]; then
			log "riscv64: no OpenSBI banner in $log: its range not checked"
		elif [ $((fw)) -lt $((riscv64_fw_lo)) ] ||
		     [ $((fw + size * 1024)) -gt $((riscv64_fw_hi)) ]; then
			die "riscv64: OpenSBI at $fw, $size KB, is outside" \
				"$riscv64_fw_lo-$riscv64_fw_hi (see $log)"
		fi
		;;
	esac
}

# run_bench ARCH VARIANT SMP: boot once, print "scenario ops user kernel" lines.
run_bench() {
	local arch=$1 variant=$2 smp=$3 obj initrd d pargs
	d=$bdir/$variant-$arch-smp$smp
	# riscv64 with two harts never finishes under QEMU 7.2's -icount (a
	# user-notification scenario made no progress in 8 minutes, nor in 5
	# with sleep=on), and without -icount the counts follow the host's
	# clock (one run: 3.1 times the base's): n/a.
	if [ "$arch-$smp" = riscv64-2 ]; then
		sed 's/#.*//' "${TOP}/bench/bench.list" |
			awk -v smp="$smp" '$1 == smp && NF >= 4 { printf "%s (-smp %s)\tn/a\n", $4, smp }'
		return
	fi
	obj=$("${TOP}/scripts/build.sh" "$arch" prod "$variant")
	initrd=$(OUT=$d SUITE=bench BENCH_SMP=$smp "${TOP}/scripts/initramfs.sh" "$arch" "$obj")
	rm -f "$d/plugin.log"
	plugin_args "$arch" "$obj"
	# Exact and repeatable: one host thread for all vCPUs (-icount), a
	# fixed seed and virtual clock, no NIC, no KASLR.
	SMP=$smp QEMU_EXTRA="-icount shift=0,sleep=off -seed 1 -rtc base=2025-01-01T00:00:00,clock=vm
		-nic none -plugin $plugin$pargs -d plugin -D $d/plugin.log" \
		boot_to_end "$arch" "$obj" "$initrd" "$d" "$variant bench" nokaslr
	check_layout "$arch" "$obj" "$d/console.log"
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
