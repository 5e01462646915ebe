#!/usr/bin/env bash
# bisect-check.sh ARCH...: build every prefix of the series (the first
# patch, the first two, ..., all of them) for each ARCH with the debug
# config, so that any commit of the series can be bisected to, and run
# compile-check.sh on it (a minimal config of each booted architecture,
# the entry objects of the other generic-entry architectures).  Builds are
# incremental: the build source moves from one prefix to the next.  Stops
# at the first prefix that does not build, naming its last patch.
# FROM=N starts at the Nth prefix, when the ones before it were checked
# already (patches added at the end of the series).
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
for n in $(seq "$from" "$total"); do
	last=$(SERIES_UPTO=$n series_files | tail -n1)
	for arch in "$@"; do
		log "prefix $n/$total ($(basename "$last")) on $arch"
		SERIES_UPTO=$n "${TOP}/scripts/build.sh" "$arch" debug series >/dev/null ||
			die "the series does not build for $arch up to $(basename "$last")"
	done
	SERIES_UPTO=$n "${TOP}/scripts/compile-check.sh" ||
		die "compile-check fails up to $(basename "$last")"
done
echo "bisect-check: prefixes $from to $total of $total build for $*, with the minimal and cross builds"
