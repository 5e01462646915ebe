#!/usr/bin/env bash
# bisect-check.sh ARCH...: every prefix of the series (the first patch, the
# first two, ..., all of them) builds, so that any commit of the series
# can be bisected to: for each ARCH with the debug config, and
# compile-check.sh's builds (a minimal config of each ARCH,
# the cross builds of cross.tbl).
#
# At each prefix the builds compile the series' objects (series_objects in
# lib.sh: the files the whole series changes, the generic entry code, the
# KUnit suites, the architecture's files that include the entry headers);
# at the last prefix, the whole kernels, linked.  Whole kernels at every
# prefix (BISECT_FULL=1) rebuild most of the tree at nearly every patch
# here: sched.h, seccomp.h (which ptrace.h includes) and the thread_info.h
# of both architectures are in most of the series' patches.
#
# Builds are incremental: the build source moves from one prefix to the
# next.  A prefix whose patch touches only another architecture's arch/
# directory, Documentation/, tools/ or MAINTAINERS leaves that build as it
# was.  Stops at the first prefix that does not build, naming its last
# patch.  FROM=N starts at the Nth prefix, when the ones before it were
# checked already (patches added at the end of the series, or a run that
# stopped: $OUT/bisect-check.txt records each prefix as it passes).
. "$(dirname "$0")/lib.sh"

[ "$#" -gt 0 ] || die "usage: bisect-check.sh ARCH..."
for arch in "$@"; do check_arch "$arch"; done
total=$(series_files | wc -l)
[ "$total" -gt 0 ] || { echo "bisect-check: the series is empty; nothing to check"; exit 0; }
from=${FROM:-1}
case $from in
''|*[!0-9]*|0) die "FROM=$from: give the number of the first prefix to check (1 to $total)" ;;
esac
[ "$from" -le "$total" ] || die "FROM=$from: the series has only $total patches"
objects=series what="the series' objects"
[ -z "${BISECT_FULL:-}" ] || objects= what="whole kernels"

# reach PATCH: the arch/ directories whose builds the patch can change, or
# "all".  Documentation/, tools/ and MAINTAINERS are in no kernel build,
# and one architecture's arch/ directory is in no other's: a build that the
# patch does not reach has the inputs it had at the previous prefix.
reach() {
	patch_paths "$1" | awk '
		/^(Documentation|tools)\// || $0 == "MAINTAINERS" { next }
		/^arch\// { split($0, p, "/"); a[p[2]] = 1; next }
		{ all = 1 }
		END { if (all) print "all"; else for (k in a) print k }' | sort | paste -sd ' '
}

record=${OUT}/bisect-check.txt
mkdir -p "$OUT"
echo "# make bisect-check of $total patches for $*, from prefix $from, $what ($(date -u '+%F %R') UTC)" >>"$record"
for n in $(seq "$from" "$total"); do
	last=$(SERIES_UPTO=$n series_files | tail -n1)
	start=$(date +%s)
	# The first prefix of a run builds everything: the object directories
	# may hold any other source.
	karchs=all
	[ "$n" = "$from" ] || karchs=$(reach "$last")
	[ -n "$karchs" ] || karchs=none
	built=() same=()
	for arch in "$@"; do
		karch=$(arch_get "$arch" karch)
		if [ "$karchs" != all ] && [[ " $karchs " != *" $karch "* ]]; then
			same+=("$arch")
			continue
		fi
		log "prefix $n/$total ($(basename "$last")) on $arch, $what"
		SERIES_UPTO=$n OBJECTS=$objects "${TOP}/scripts/build.sh" "$arch" debug series >/dev/null ||
			die "the series does not build for $arch up to $(basename "$last")"
		built+=("$arch")
	done
	[ "${#same[@]}" = 0 ] ||
		log "prefix $n/$total: $(basename "$last") changes nothing the ${same[*]} debug build reads"
	SERIES_UPTO=$n OBJECTS=$objects CHECK_KARCHS=$karchs "${TOP}/scripts/compile-check.sh" "$@" ||
		die "compile-check fails up to $(basename "$last")"
	echo "prefix $n/$total $(basename "$last"): $what build (debug: ${built[*]:-none rebuilt}; compile-check: arch/ $karchs) in $(( $(date +%s) - start ))s" >>"$record"
done
if [ -n "$objects" ]; then
	start=$(date +%s)
	for arch in "$@"; do
		log "the whole series on $arch, the whole kernel"
		"${TOP}/scripts/build.sh" "$arch" debug series >/dev/null ||
			die "the whole series does not build for $arch"
	done
	"${TOP}/scripts/compile-check.sh" "$@" || die "compile-check fails on the whole series"
	echo "prefix $total/$total: whole kernels build and link (debug: $*; compile-check: all) in $(( $(date +%s) - start ))s" >>"$record"
fi
echo "bisect-check: prefixes $from to $total of $total build for $*, with the minimal and cross builds ($what; whole kernels of the whole series)" |
	tee -a "$record"
