#!/usr/bin/env bash
# initramfs.sh ARCH: build the guest init and the test programs statically
# for ARCH and pack them into $OUT/ARCH/initramfs.cpio.  Prints its path.
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: initramfs.sh ARCH}
check_arch "$arch"
cross=$(arch_get "$arch" cross)
cc=${cross}gcc
need "$cc" "gcc-${cross%-}"
dir=${OUT}/${arch}/initramfs
rm -rf "$dir"
mkdir -p "$dir/tests"
cflags=(-static -O2 -g0 -Wall -Wextra -Werror -I"${TOP}/tests")

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
: >"$dir/tests/list"
for c in "${TOP}"/tests/*.c; do
	name=$(basename "$c" .c)
	[ -z "${ONLY:-}" ] || [ "$name" = "$ONLY" ] || continue
	"$cc" "${cflags[@]}" -o "$dir/tests/$name" "$c" ||
		die "test program $name does not build for $arch"
	echo "$name" >>"$dir/tests/list"
	echo "file /tests/$name $dir/tests/$name 0755 0 0" >>"$dir/list.cpio"
done
echo "file /tests/list $dir/tests/list 0644 0 0" >>"$dir/list.cpio"
"$gen" "$dir/list.cpio" >"${OUT}/${arch}/initramfs.cpio"
echo "${OUT}/${arch}/initramfs.cpio"
