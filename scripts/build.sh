#!/usr/bin/env bash
# build.sh ARCH FLAVOUR VARIANT: configure and build a kernel out of tree.
#   FLAVOUR  debug (make test), kasan (debug with KASAN) or prod (bench);
#            selects configs/FLAVOUR*.config, after those of the flavour it
#            names in an "# extends: FLAVOUR" first line
#   VARIANT  series or base (see source.sh)
# TOOLCHAIN=llvm (clang-16, default) or gcc.  OBJECTS=series builds only
# the objects series_objects (lib.sh) names, not the image (bisect-check).
# Prints the object directory.
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: build.sh ARCH FLAVOUR VARIANT}
flavour=${2:?}
variant=${3:?}
toolchain=${TOOLCHAIN:-llvm}
check_arch "$arch"
[ -f "${TOP}/configs/${flavour}.config" ] ||
	die "unknown config flavour '$flavour' (no configs/${flavour}.config)"
# The flavours whose fragments apply, the one it extends first.
chain=() f=$flavour
while [ -n "$f" ]; do
	[ -f "${TOP}/configs/$f.config" ] || die "configs/${chain[0]}.config extends '$f', which has no configs/$f.config"
	[[ " ${chain[*]} " != *" $f "* ]] || die "configs/$f.config: the flavours extend each other in a loop"
	chain=("$f" "${chain[@]}")
	f=$(sed -n '1s/^# extends: *\([A-Za-z0-9_-]*\).*/\1/p' "${TOP}/configs/$f.config")
done

karch=$(arch_get "$arch" karch)
image=$(arch_get "$arch" image)
ccache=
command -v ccache >/dev/null 2>&1 && ccache="ccache "
case $toolchain in
llvm)
	need clang-16 clang-16
	need ld.lld-16 lld-16
	IFS=, read -r -a kllvm <<<"$(arch_get "$arch" kllvm)"
	[[ " ${kllvm[*]} " != *" CROSS_COMPILE="* ]] || need "$(arch_get "$arch" cross)ld" \
		"binutils-$(arch_get "$arch" cross | sed 's/-$//')"
	kmake=("${kllvm[@]}" "CC=${ccache}clang-16" "HOSTCC=${ccache}clang-16")
	;;
gcc)
	cross=$(arch_get "$arch" cross)
	[ "$karch" = "$(uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')" ] && cross=
	need "${cross}gcc" "gcc-${cross%-}"
	kmake=("CROSS_COMPILE=${cross}" "CC=${ccache}${cross}gcc" "HOSTCC=${ccache}gcc")
	;;
*) die "unknown TOOLCHAIN '$toolchain' (llvm or gcc)" ;;
esac
need flex flex
need bison bison
need bc bc

src=$("${TOP}/scripts/source.sh" "$variant")
obj=$(obj_dir "$arch" "$flavour" "$variant")
mkdir -p "$obj"
kmake=(make -s -C "$src" O="$obj" ARCH="$karch" "${kmake[@]}")
# check.sh runs extra targets in this object directory with the same make.
printf '%q ' "${kmake[@]}" >"$obj/kmake.args"

# Fragments in a fixed order: common, architecture, then per flavour (the
# extended one first) flavour and flavour+arch, and for the series
# flavour+series: options the series itself adds.
frags=()
for f in common "$arch"; do
	[ -f "${TOP}/configs/$f.config" ] && frags+=("${TOP}/configs/$f.config")
done
for fl in "${chain[@]}"; do
	for f in "$fl" "${fl}-${arch}"; do
		[ -f "${TOP}/configs/$f.config" ] && frags+=("${TOP}/configs/$f.config")
	done
done
for fl in "${chain[@]}"; do
	sfrag=${TOP}/configs/${fl}-series.config
	[ "$variant" = series ] && [ -f "$sfrag" ] || continue
	if [ -n "${SERIES_UPTO:-}" ]; then
		# A prefix of the series (bisect-check) may not define them yet:
		# keep those whose symbol its Kconfig files define.
		while IFS= read -r line; do
			sym=$(sed -nE 's/^(# )?CONFIG_([A-Za-z0-9_]+)[= ].*/\2/p' <<<"$line")
			[ -z "$sym" ] || grep -rqE --include='Kconfig*' "^[[:space:]]*(menu)?config $sym\$" "$src" ||
				continue
			printf '%s\n' "$line"
		done <"$sfrag" >"$obj/series-prefix-$fl.config"
		sfrag=$obj/series-prefix-$fl.config
	fi
	frags+=("$sfrag")
done
"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "${frags[@]}" >"$obj/merge.log" 2>&1 ||
	{ cat "$obj/merge.log" >&2; die "merge_config.sh failed"; }
mv "$obj/.config" "$obj/requested.config"
if ! cmp -s "$obj/requested.config" "$obj/requested.config.built" ||
   [ ! -f "$obj/.config.built" ]; then
	log "configuring $arch ($flavour, $variant, $toolchain)"
	"${kmake[@]}" KCONFIG_ALLCONFIG="$obj/requested.config" allnoconfig >"$obj/config.log" 2>&1 ||
		{ tail -n 20 "$obj/config.log" >&2; die "kernel configuration failed"; }
	# Every requested value must survive: a dropped dependency is an error.
	lost=$(grep -E '^CONFIG_[A-Za-z0-9_]+=' "$obj/requested.config" |
		grep -vxF -f "$obj/.config" || true)
	[ -z "$lost" ] || die "requested options did not survive the configuration of $arch:
$lost
(their dependencies are missing: check configs/)"
	cp "$obj/.config" "$obj/.config.built"
	cp "$obj/requested.config" "$obj/requested.config.built"
else
	cp "$obj/.config.built" "$obj/.config"
fi

if [ "${OBJECTS:-}" = series ]; then
	list=$(series_objects "$src" "$obj" "$karch") && [ -n "$list" ] ||
		die "cannot list the series' objects for $arch"
	mapfile -t targets <<<"$list"
	log "building the series' objects for $arch ($flavour, $toolchain): ${targets[*]}"
	flock "$obj/headers.lock" "${kmake[@]}" -j"$(nproc)" "${targets[@]}" >"$obj/objects.log" 2>&1 || {
		grep -E 'error|Error' "$obj/objects.log" | head -n 20 >&2 || true
		tail -n 20 "$obj/objects.log" >&2
		die "the series' objects do not build for $arch (full log: $obj/objects.log)"
	}
	echo "$obj"
	exit 0
fi
log "building $arch kernel ($flavour, $variant, $toolchain) in $obj"
start=$(date +%s)

# make -s is silent: every PROGRESS_EVERY seconds (20 on a terminal, 60
# otherwise, so a CI log gets a line a minute at most) say how many objects
# this build has compiled, against the count of a whole build here.
progress() {
	local every total n
	every=${PROGRESS_EVERY:-60}
	[ -n "${PROGRESS_EVERY:-}" ] || [ ! -t 2 ] || every=20
	total=$(cat "$obj/objects.count" 2>/dev/null || true)
	while sleep "$every" </dev/null >/dev/null 2>&1; do
		n=$(find "$obj" -name '*.o' -newer "$obj/build.start" | wc -l)
		log "building $arch: $n objects compiled${total:+ (a whole build has $total)}, $(( ($(date +%s) - start) / 60 )) min"
	done
}
touch "$obj/build.start"
progress >/dev/null &
progress_pid=$!
trap 'kill "$progress_pid" 2>/dev/null || true' EXIT

# The lock is initramfs.sh's: a "make retest" must not install headers
# into this object directory while the kernel is being built in it.
if ! flock "$obj/headers.lock" "${kmake[@]}" -j"$(nproc)" "$(basename "$image")" >"$obj/build.log" 2>&1; then
	grep -E 'error|Error' "$obj/build.log" | head -n 20 >&2 || true
	tail -n 20 "$obj/build.log" >&2
	die "kernel build failed for $arch (full log: $obj/build.log)"
fi
kill "$progress_pid" 2>/dev/null || true
find "$obj" -name '*.o' | wc -l >"$obj/objects.count"
log "built $arch in $(( $(date +%s) - start ))s"
[ -f "$obj/$image" ] || die "build finished but $obj/$image is missing"
echo "$obj"
