#!/usr/bin/env bash
# difftest.sh ARCH...: make difftest.  Builds the base and the series debug
# kernels of each architecture and runs the same generated scenarios on
# both (scripts/difftest.py run): SEED (default: new, printed) and
# SCENARIOS (default 10000) per kernel.  RECORD=1 instead records the base
# traces of make test's short batch (SEED default 1, SCENARIOS default 300)
# into difftest/base-ARCH.trace.
. "$(dirname "$0")/lib.sh"

[ "$#" -gt 0 ] || die "usage: difftest.sh ARCH..."
for arch in "$@"; do check_arch "$arch"; done
[ -n "$(series_files)" ] || die "patches/series is empty: there is nothing to compare with the base"
if [ -n "${RECORD:-}" ]; then
	seed=${SEED:-1} count=${SCENARIOS:-300} variants=base
else
	seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')} count=${SCENARIOS:-10000}
	variants="base series"
fi
case $seed$count in *[!0-9]*) die "SEED and SCENARIOS are numbers" ;; esac
objs=()
for arch in "$@"; do
	objs+=(--image "$arch=$(arch_get "$arch" image)")
	for variant in $variants; do
		obj=$("${TOP}/scripts/build.sh" "$arch" debug "$variant") || die "the $variant kernel for $arch did not build"
		objs+=(--obj "$arch:$variant=$obj")
	done
done
out=${OUT}/difftest-run
rm -rf "$out"
mkdir -p "$out"
log "difftest: seed $seed, $count scenarios per kernel (SEED=$seed repeats it)"
exec python3 "${TOP}/scripts/difftest.py" "$([ -n "${RECORD:-}" ] && echo record || echo run)" \
	$(printf -- '--arch %s ' "$@") "${objs[@]}" --seed "$seed" --count "$count" --out "$out"
