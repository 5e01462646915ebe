#!/usr/bin/env bash
# initramfs.sh ARCH OBJ: build the guest init, the project's test programs
# (those in tests/compat.list a second time as 32-bit NAME_32, those in
# tests/cached.list a second time under an always-allow seccomp filter as
# NAME_cached), and the
# upstream selftests (tests/upstream.tbl, UAPI headers from the
# kernel in OBJ) statically for ARCH and pack them into
# $OUT/ARCH/initramfs.cpio.  ONLY=NAME keeps one program.  SUITE=bench packs
# bench/bench.c and the BENCH_SMP lines of bench/bench.list instead of the
# tests, SUITE=rseqstats bench/rseq_stats.c and the rseq selftests its
# workload runs; SUITE=difftest difftest/difftest.c and its compat build
# difftest_32, run with DT_ARGS and DT_ARGS32.  Every tests run also has
# difftest's short batches (difftest/base-ARCH.trace names them).  BUSYBOX=PATH adds that static busybox as /bin/busybox and
# /bin/run-test (the init, run by that name: see guest/init.c) for make
# shell.  Prints the path.
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: initramfs.sh ARCH OBJ}
obj=${2:?usage: initramfs.sh ARCH OBJ}
check_arch "$arch"
cross=$(arch_get "$arch" cross)
cc=${cross}gcc
need "$cc" "gcc-${cross%-}"
dir=${OUT}/${arch}/initramfs
rm -rf "$dir"
mkdir -p "$dir/tests"
# The UAPI headers of the kernel under test, for the tests and selftests.
# Installed again only when the kernel is newer than them; the lock keeps
# concurrent "make retest" runs on one kernel from installing at once.
eval "kmake=($(cat "$obj/kmake.args"))"
khdr=$obj/usr/include
stamp=$obj/headers.stamp
image=$obj/$(arch_get "$arch" image)
(
	flock 9
	if [ ! -f "$stamp" ] || [ "$image" -nt "$stamp" ]; then
		"${kmake[@]}" headers >/dev/null 2>&1 || exit 1
		touch "$stamp"
	fi
) 9>"$obj/headers.lock" || die "make headers failed in $obj"
# -I "$dir": profiles.h (scripts/profiles.sh), for tests/profiles.c and bench.
cflags=(-static -O2 -g0 -Wall -Wextra -Werror -I"${TOP}/tests" -I"$dir")
# No compat tasks to test ("-"): no 32-bit builds (tests/required.tbl asks
# for them where the kernel has CONFIG_COMPAT).
IFS=, read -r -a cc32 <<<"$(arch_get "$arch" cc32 | sed "s|@KHDR@|$khdr|g")"
[ "${cc32[0]}" = - ] && cc32=() || need "${cc32[0]}" "${cc32[0]} (see make deps)"

# gen_init_cpio from the base tree packs device nodes without needing root.
gen=${OUT}/host/gen_init_cpio
if [ ! -x "$gen" ]; then
	mkdir -p "${OUT}/host"
	"${TOP}/scripts/base.sh" >/dev/null
	git --git-dir="$BASE_GIT" show "${BASE_REF}:usr/gen_init_cpio.c" >"${OUT}/host/gen_init_cpio.c"
	cc -O2 -o "$gen" "${OUT}/host/gen_init_cpio.c"
fi

"$cc" "${cflags[@]}" -o "$dir/init" "${TOP}/guest/init.c"
cat >"$dir/list.cpio" <<LIST
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
dir /proc 0755 0 0
dir /sys 0755 0 0
dir /tmp 1777 0 0
dir /tests 0755 0 0
file /init $dir/init 0755 0 0
LIST
if [ -n "${BUSYBOX:-}" ]; then
	[ -x "$BUSYBOX" ] || die "no busybox at $BUSYBOX"
	cat >>"$dir/list.cpio" <<LIST
dir /bin 0755 0 0
file /bin/busybox $BUSYBOX 0755 0 0
slink /bin/run-test /init 0777 0 0
LIST
fi
build_tests() {
	"${TOP}/scripts/profiles.sh" "$arch" "$dir/profiles.h"
	for c in "${TOP}"/tests/*.c; do
		name=$(basename "$c" .c)
		# Others' work in progress must not stop a run of one program.
		[ -z "${ONLY:-}" ] || [ "$name" = "$ONLY" ] || continue
		"$cc" "${cflags[@]}" -isystem "$khdr" -o "$dir/tests/$name" "$c" ||
			die "test program $name does not build for $arch"
		echo "$name"
	done >"$dir/tests/list"
	# 32-bit (compat) builds of the programs whose subject differs for them.
	sed 's/#.*//' "${TOP}/tests/compat.list" | while read -r name; do
		[ -n "$name" ] && [ "${#cc32[@]}" != 0 ] || continue
		[ -z "${ONLY:-}" ] || [ "${name}_32" = "$ONLY" ] || continue
		"${cc32[@]}" "${cflags[@]}" -o "$dir/tests/${name}_32" "${TOP}/tests/$name.c" ||
			die "test program $name does not build as a 32-bit program for $arch"
		echo "${name}_32"
	done >>"$dir/tests/list"
	# Again under an always-allow seccomp filter (the entry's fast path).
	"$cc" "${cflags[@]}" -isystem "$khdr" -o "$dir/tests/seccomp_allow" \
		"${TOP}/guest/seccomp_allow.c" || die "guest/seccomp_allow.c does not build for $arch"
	sed 's/#.*//' "${TOP}/tests/cached.list" | while read -r name; do
		[ -n "$name" ] || continue
		[ -z "${ONLY:-}" ] || [ "${name}_cached" = "$ONLY" ] || continue
		[ -x "$dir/tests/$name" ] || "$cc" "${cflags[@]}" -isystem "$khdr" \
			-o "$dir/tests/$name" "${TOP}/tests/$name.c" ||
			die "test program $name does not build for $arch"
		echo "${name}_cached seccomp_allow $name"
	done >>"$dir/tests/list"
	"${TOP}/scripts/selftests.sh" "$arch" "$obj" "$dir/tests" >>"$dir/tests/list"
	# The short difftest batches, native and compat, whose base traces
	# are recorded.  difftest runs where difftest/base-ARCH.trace exists
	# (tests/required.tbl names those architectures, so a lost file fails).
	local batch batch32 trace=${TOP}/difftest/base-$arch.trace
	[ -f "$trace" ] || { log "no difftest batch on $arch (no difftest/base-$arch.trace)"; return 0; }
	batch=$(sed -n 's/^# batch \([0-9]* [0-9]* [0-9]*\)$/\1/p' "$trace")
	batch32=$(sed -n 's/^# compat \([0-9]* [0-9]* [0-9]*\)$/\1/p' "$trace")
	[ -n "$batch" ] && { [ -n "$batch32" ] || [ "${#cc32[@]}" = 0 ]; } ||
		die "no recorded base traces in difftest/base-$arch.trace (make difftest-record ARCH=$arch)"
	build_difftest
	echo "difftest difftest $batch" >>"$dir/tests/list"
	[ "${#cc32[@]}" = 0 ] || echo "difftest_32 difftest_32 $batch32" >>"$dir/tests/list"
}

# difftest and its compat build difftest_32
build_difftest() {
	"$cc" "${cflags[@]}" -isystem "$khdr" -o "$dir/tests/difftest" \
		"${TOP}/difftest/difftest.c" || die "difftest/difftest.c does not build for $arch"
	[ "${#cc32[@]}" = 0 ] ||
		"${cc32[@]}" "${cflags[@]}" -o "$dir/tests/difftest_32" "${TOP}/difftest/difftest.c" ||
		die "difftest/difftest.c does not build as a 32-bit program for $arch"
}

case ${SUITE:-tests} in
tests) build_tests ;;
bench)
	"${TOP}/scripts/profiles.sh" "$arch" "$dir/profiles.h"
	"$cc" "${cflags[@]}" -isystem "$khdr" -o "$dir/tests/bench" "${TOP}/bench/bench.c" ||
		die "bench/bench.c does not build for $arch"
	# Compat tasks' scenarios, where the architecture has them.
	[ "${#cc32[@]}" = 0 ] ||
		"${cc32[@]}" "${cflags[@]}" -o "$dir/tests/bench_32" "${TOP}/bench/bench.c" ||
		die "bench/bench.c does not build as a 32-bit program for $arch"
	# The lines for this boot's vCPU count, without that column, of the
	# programs built.
	awk -v smp="${BENCH_SMP:-1}" -v dir="$dir/tests" '!/^#/ && $1 == smp {
		$1 = ""; sub(/^ /, "")
		if (system("test -x " dir "/" $2) == 0) print }' \
		"${TOP}/bench/bench.list" >"$dir/tests/list"
	;;
rseqstats)
	"$cc" "${cflags[@]}" -o "$dir/tests/rseq_stats" "${TOP}/bench/rseq_stats.c" ||
		die "bench/rseq_stats.c does not build for $arch"
	echo rseq_stats >"$dir/tests/list"
	# The workload also runs the rseq selftests, as make test runs them.
	sed -e 's/#.*//' "${TOP}/tests/upstream.tbl" | cut -d'|' -f1 | grep -o '^ *rseq_[a-z_0-9]*' |
	while read -r t; do
		ONLY=$t "${TOP}/scripts/selftests.sh" "$arch" "$obj" "$dir/tests" || exit
	done >"$dir/tests/rseq_selftests" || die "the rseq selftests do not build for $arch"
	[ -s "$dir/tests/rseq_selftests" ] || die "tests/upstream.tbl names no rseq selftest"
	;;
difftest)
	# DT_ARGS (difftest) and DT_ARGS32 (difftest_32), either empty for
	# none: "SEED FIRST COUNT", or "-f scenarios" with DT_SCENARIOS, a
	# file of "INDEX SCENARIO" lines (scripts/difftest.py).
	[ -n "${DT_ARGS:-}${DT_ARGS32:-}" ] || die "SUITE=difftest needs DT_ARGS or DT_ARGS32"
	build_difftest
	: >"$dir/tests/list"
	[ -z "${DT_ARGS:-}" ] || echo "difftest difftest $DT_ARGS" >>"$dir/tests/list"
	[ -z "${DT_ARGS32:-}" ] || echo "difftest_32 difftest_32 $DT_ARGS32" >>"$dir/tests/list"
	if [ -n "${DT_SCENARIOS:-}" ]; then
		cp "$DT_SCENARIOS" "$dir/tests/scenarios" || die "no scenario file $DT_SCENARIOS"
	fi
	;;
*) die "unknown SUITE '$SUITE'" ;;
esac
if [ -n "${ONLY:-}" ]; then
	grep -E "^${ONLY}( |\$)" "$dir/tests/list" >"$dir/only" ||
		die "no test program named '$ONLY'"
	mv "$dir/only" "$dir/tests/list"
fi
for f in "$dir"/tests/*; do
	echo "file /tests/${f##*/} $f 0755 0 0"
done >>"$dir/list.cpio"
"$gen" "$dir/list.cpio" >"${OUT}/${arch}/initramfs.cpio"
echo "${OUT}/${arch}/initramfs.cpio"
