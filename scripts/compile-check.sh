#!/usr/bin/env bash
# compile-check.sh ARCH...: compile-only builds of the series in the build
# source (SERIES_UPTO=N for a prefix; bisect-check runs it for every prefix):
#   - each ARCH (arch.tbl's booted architectures): tinyconfig plus
#     configs/minimal.config, the whole vmlinux;
#   - each row of cross.tbl: tinyconfig plus configs/cross.config (and the
#     row's extra options), the whole vmlinux; or a defconfig, the
#     series' objects only (lib.sh's series_objects).
# clang-16, or the compiler a cross.tbl row names (a cross gcc, clang-19).
# OBJECTS=series (bisect-check at each prefix) compiles the series'
# objects in every build instead of the whole vmlinux.
# CHECK_KARCHS="arm64 s390 ..." (arch/ directory names; unset or "all":
# every build) limits it to the builds of those architectures:
# bisect-check's prefix whose patch reaches no other.  Stops at the
# first build that fails, naming it.
. "$(dirname "$0")/lib.sh"

need clang-16 clang-16
need ld.lld-16 lld-16
src=$("${TOP}/scripts/source.sh" series)
ccache=
command -v ccache >/dev/null 2>&1 && ccache="ccache "
host=("HOSTCC=${ccache}clang-16")
wanted() { [ "${CHECK_KARCHS:-all}" = all ] || [[ " $CHECK_KARCHS " == *" $1 "* ]]; }

# kbuild NAME LOG MAKE-ARGS...: run one kernel make, quietly, or die naming
# NAME with the errors and the log's tail.
kbuild() {
	local name=$1 logf=$2
	shift 2
	if ! make -s -C "$src" "$@" >"$logf" 2>&1; then
		grep -E 'error|Error' "$logf" | head -n 20 >&2 || true
		tail -n 10 "$logf" >&2
		die "$name does not build (full log: $logf)"
	fi
}

# stale OBJ PARTS...: false when OBJ's .config was made from the Kconfig
# files and default configs as they are and from the same PARTS (make
# arguments, fragments), so that configuring again would give it back;
# otherwise true, with OBJ's record forgotten until configured() writes it.
# Most prefixes change no Kconfig file: their builds are not configured
# again.
stale() {
	local kc
	kc=$(cd "$src" && git ls-files -z ':(icase)*kconfig*' kernel/configs 'arch/*/configs' |
		xargs -0 cat -- | sha256sum) || die "cannot read the Kconfig files of $src"
	key=$(printf '%s\n' "$kc" "$@" | sha256sum)
	if [ -f "$1/.config" ] && [ "$(cat "$1/config.key" 2>/dev/null)" = "$key" ]; then
		log "$(basename "$1"): configured already for these Kconfig files"
		return 1
	fi
	rm -f "$1/config.key"
}
configured() { echo "$key" >"$1/config.key"; }

# build_it NAME OBJ KARCH MAKE-ARGS...: the whole vmlinux, or with
# OBJECTS=series the series' objects.
build_it() {
	local name=$1 obj=$2 karch=$3 targets list
	shift 3
	if [ "${OBJECTS:-}" = series ]; then
		list=$(series_objects "$src" "$obj" "$karch") && [ -n "$list" ] ||
			die "cannot list the series' objects for $name"
		mapfile -t targets <<<"$list"
		kbuild "the series' objects of $name config" "$obj/objects.log" "$@" -j"$(nproc)" "${targets[@]}"
	else
		kbuild "$name kernel" "$obj/build.log" "$@" -j"$(nproc)" vmlinux
	fi
}

for arch in "$@"; do
	check_arch "$arch"
	karch=$(arch_get "$arch" karch)
	wanted "$karch" || continue
	obj=${CACHE}/obj/minimal-${arch}
	mkdir -p "$obj"
	IFS=, read -r -a kllvm <<<"$(arch_get "$arch" kllvm)"
	kmake=(O="$obj" ARCH="$karch" "${kllvm[@]}" "CC=${ccache}clang-16" "${host[@]}")
	log "minimal config on $arch${OBJECTS:+ (series objects only)}"
	if stale "$obj" "${kmake[@]}" "$(cat "${TOP}/configs/minimal.config")"; then
		kbuild "tinyconfig for $arch" "$obj/config.log" "${kmake[@]}" tinyconfig
		"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
			"${TOP}/configs/minimal.config" >>"$obj/config.log" 2>&1 ||
			die "merge_config.sh failed for the minimal $arch config"
		kbuild "olddefconfig for $arch" "$obj/config.log" "${kmake[@]}" olddefconfig
		lost=$(grep -E '^CONFIG_[A-Za-z0-9_]+=' "${TOP}/configs/minimal.config" |
			grep -vxF -f "$obj/.config" || true)
		[ -z "$lost" ] || die "configs/minimal.config options did not survive on $arch: $lost"
		configured "$obj"
	fi
	build_it "the minimal $arch" "$obj" "$karch" "${kmake[@]}"
done

sed -e 's/#.*//' "${TOP}/cross.tbl" | while read -r arch karch config vars extra; do
	[ -n "$arch" ] && wanted "$karch" || continue
	obj=${CACHE}/obj/cross-${arch}-${config}
	mkdir -p "$obj"
	IFS=, read -r -a mvars <<<"$vars"
	kmake=(O="$obj" ARCH="$karch" "${mvars[@]}" "${host[@]}")
	if [ "$config" = tiny ]; then
		log "tinyconfig and configs/cross.config on $arch${OBJECTS:+ (series objects only)}"
		frag=$obj/cross.config
		cat "${TOP}/configs/cross.config" >"$frag"
		[ -z "$extra" ] || [ "$extra" = - ] || tr , '\n' <<<"$extra" >>"$frag"
		if stale "$obj" "${kmake[@]}" "$(cat "$frag")"; then
			kbuild "tinyconfig for $arch" "$obj/config.log" "${kmake[@]}" tinyconfig
			"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$frag" \
				>>"$obj/config.log" 2>&1 ||
				die "merge_config.sh failed for the tiny $arch config"
			kbuild "olddefconfig for $arch" "$obj/config.log" "${kmake[@]}" olddefconfig
			lost=$(grep -E '^CONFIG_[A-Za-z0-9_]+=' "$frag" | grep -vxF -f "$obj/.config" || true)
			[ -z "$lost" ] || die "configs/cross.config options did not survive on $arch: $lost"
			configured "$obj"
		fi
		build_it "the tiny $arch" "$obj" "$karch" "${kmake[@]}"
		continue
	fi
	log "the series' objects on $arch ($config)"
	if stale "$obj" "${kmake[@]}" "$config"; then
		[ -f "$obj/.config" ] ||
			kbuild "$config for $arch" "$obj/config.log" "${kmake[@]}" "$config"
		kbuild "olddefconfig for $arch" "$obj/config.log" "${kmake[@]}" olddefconfig
		configured "$obj"
	fi
	OBJECTS=series build_it "the $config $arch" "$obj" "$karch" "${kmake[@]}"
done
