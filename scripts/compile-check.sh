#!/usr/bin/env bash
# compile-check.sh: compile-only builds of the series in the build source
# (SERIES_UPTO=N for a prefix; bisect-check runs it for every prefix):
#   - each booted architecture (arch.tbl): tinyconfig plus
#     configs/minimal.config, the whole vmlinux;
#   - each row of cross.tbl: tinyconfig plus configs/cross.config (and the
#     row's extra options), the whole vmlinux; or a defconfig, the objects
#     of the generic entry code and the architecture's own files that
#     include it.
# clang-16, or the cross gcc a cross.tbl row names.  Stops at the first
# build that fails, naming it.
. "$(dirname "$0")/lib.sh"

need clang-16 clang-16
need ld.lld-16 lld-16
src=$("${TOP}/scripts/source.sh" series)
ccache=
command -v ccache >/dev/null 2>&1 && ccache="ccache "
host=("HOSTCC=${ccache}clang-16")

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

for arch in $(arch_list); do
	karch=$(arch_get "$arch" karch)
	obj=${CACHE}/obj/minimal-${arch}
	mkdir -p "$obj"
	kmake=(O="$obj" ARCH="$karch" LLVM=-16 "CC=${ccache}clang-16" "${host[@]}")
	log "minimal config on $arch"
	kbuild "tinyconfig for $arch" "$obj/config.log" "${kmake[@]}" tinyconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
		"${TOP}/configs/minimal.config" >>"$obj/config.log" 2>&1 ||
		die "merge_config.sh failed for the minimal $arch config"
	kbuild "olddefconfig for $arch" "$obj/config.log" "${kmake[@]}" olddefconfig
	lost=$(grep -E '^CONFIG_[A-Za-z0-9_]+=' "${TOP}/configs/minimal.config" |
		grep -vxF -f "$obj/.config" || true)
	[ -z "$lost" ] || die "configs/minimal.config options did not survive on $arch: $lost"
	kbuild "the minimal $arch kernel" "$obj/build.log" "${kmake[@]}" -j"$(nproc)" vmlinux
done

sed -e 's/#.*//' "${TOP}/cross.tbl" | while read -r arch karch config vars extra; do
	[ -n "$arch" ] || continue
	obj=${CACHE}/obj/cross-${arch}-${config}
	mkdir -p "$obj"
	IFS=, read -r -a mvars <<<"$vars"
	kmake=(O="$obj" ARCH="$karch" "${mvars[@]}" "${host[@]}")
	if [ "$config" = tiny ]; then
		log "tinyconfig and configs/cross.config on $arch, the whole vmlinux"
		frag=$obj/cross.config
		cat "${TOP}/configs/cross.config" >"$frag"
		[ -z "$extra" ] || [ "$extra" = - ] || tr , '\n' <<<"$extra" >>"$frag"
		kbuild "tinyconfig for $arch" "$obj/config.log" "${kmake[@]}" tinyconfig
		"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$frag" \
			>>"$obj/config.log" 2>&1 ||
			die "merge_config.sh failed for the tiny $arch config"
		kbuild "olddefconfig for $arch" "$obj/config.log" "${kmake[@]}" olddefconfig
		lost=$(grep -E '^CONFIG_[A-Za-z0-9_]+=' "$frag" | grep -vxF -f "$obj/.config" || true)
		[ -z "$lost" ] || die "configs/cross.config options did not survive on $arch: $lost"
		kbuild "the tiny $arch kernel" "$obj/build.log" "${kmake[@]}" -j"$(nproc)" vmlinux
		continue
	fi
	log "entry objects on $arch ($config)"
	[ -f "$obj/.config" ] ||
		kbuild "$config for $arch" "$obj/config.log" "${kmake[@]}" "$config"
	kbuild "olddefconfig for $arch" "$obj/config.log" "${kmake[@]}" olddefconfig
	targets=(kernel/entry/ kernel/sched/core.o)
	while read -r f; do
		targets+=("${f%.c}.o")
	done < <(cd "$src" && grep -rlE '<linux/(irq-)?entry-common\.h>' "arch/$karch" --include='*.c' | sort)
	kbuild "the generic entry objects on $arch" "$obj/build.log" \
		"${kmake[@]}" -j"$(nproc)" "${targets[@]}"
done
