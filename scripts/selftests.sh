#!/usr/bin/env bash
# selftests.sh ARCH OBJ DEST: build the upstream selftests of tests/upstream.tbl
# for ARCH from the kernel source behind OBJ (UAPI headers from its
# "make headers"), statically, into DEST; print one /tests/list line each
# and name the ones that print no KTAP in DEST/plain.
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: selftests.sh ARCH OBJ DEST}
obj=${2:?}
dest=${3:?}
check_arch "$arch"
cc=$(arch_get "$arch" cross)gcc
# initramfs.sh has run "make headers" in OBJ.
eval "kmake=($(cat "$obj/kmake.args"))"
src=${kmake[3]}
[ "${kmake[2]}" = -C ] && [ -d "$src/tools/testing/selftests" ] ||
	die "cannot find the kernel source of $obj"
st=$src/tools/testing/selftests
cache=${OUT}/${arch}/selftests
mkdir -p "$cache" "$dest"
: >"$dest/plain"

sed -e 's/#.*//' "${TOP}/tests/upstream.tbl" |
while IFS='|' read -r name arches sources flags ktap args; do
	name=$(echo $name)
	[ -n "$name" ] || continue
	ktap=$(echo $ktap)
	case $ktap in
	ktap) ;;
	plain) [[ " $(echo $arches) " != *" $arch "* ]] || echo "$name" >>"$dest/plain" ;;
	*) die "tests/upstream.tbl: $name: KTAP column must be ktap or plain, not '$ktap'" ;;
	esac
	[[ " $(echo $arches) " == *" $arch "* ]] || continue
	[ -z "${ONLY:-}" ] || [ "$name" = "$ONLY" ] || continue
	bin=$cache/$name
	srcs=()
	stale=
	for s in $sources; do
		srcs+=("$st/$s")
		[ "$bin" -nt "$st/$s" ] || stale=1
	done
	[ "$bin" -nt "${TOP}/tests/upstream.tbl" ] || stale=1
	if [ -n "$stale" ]; then
		dir=$(dirname "${srcs[0]}")
		# shellcheck disable=SC2086 # FLAGS is a list of words
		(cd "$dir" && "$cc" -static -O2 -w -D_GNU_SOURCE \
			-isystem "$obj/usr/include" -I"${TOP}/tests/upstream/include" \
			-I"$st" -I. \
			-o "$bin" "${srcs[@]}" $flags) >"$cache/$name.log" 2>&1 ||
			die "upstream selftest $name does not build for $arch:
$(tail -n 15 "$cache/$name.log")"
	fi
	cp "$bin" "$dest/$name"
	# init runs "NAME PROGRAM ARGS..."
	echo "$name" ${args:+$name $args}
done
