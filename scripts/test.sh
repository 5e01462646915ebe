#!/usr/bin/env bash
# test.sh FLAVOUR VARIANT ARCH...: the judge's self-test, then guest.sh for
# each architecture, difftest's batch comparison (scripts/difftest.py batch),
# then make shell's scripted sessions on the kernels
# just built; print a summary per architecture and the closing "N passed,
# N failed" line.
. "$(dirname "$0")/lib.sh"

flavour=${1:?usage: test.sh FLAVOUR VARIANT ARCH...}
variant=${2:?}
shift 2
for arch in "$@"; do check_arch "$arch"; done

# Fast and kernel-free: a judge that lets a failure pass would make every
# result below meaningless.
rm -f "${OUT}/judge/results.tsv"
"${TOP}/scripts/judge-selftest.sh" || log "the judge's self-test failed (see ${OUT}/judge/results.tsv)"
if [ ! -s "${OUT}/judge/results.tsv" ]; then
	mkdir -p "${OUT}/judge"
	printf 'FAIL\tFAIL\tjudge/self-test did not run\t\n' >"${OUT}/judge/results.tsv"
fi

for arch in "$@"; do
	res=${OUT}/${arch}/results.tsv
	rm -f "$res"
	rc=0
	"${TOP}/scripts/guest.sh" "$arch" "$flavour" "$variant" || rc=$?
	if [ ! -s "$res" ]; then
		mkdir -p "$(dirname "$res")"
		printf 'FAIL\tFAIL\t%s/harness/build or boot did not complete (status %s)\t\n' \
			"$arch" "$rc" >"$res"
	fi
done

# difftest's short batch, which the guests of the architectures it compares
# ran (those with difftest/base-ARCH.trace; tests/required.tbl names them):
# their traces against the base's recorded ones, and the architectures
# against each other.
dt=()
for arch in "$@"; do
	[ ! -f "${TOP}/difftest/base-$arch.trace" ] || dt+=("$arch")
done
res=${OUT}/difftest/results.tsv
rm -f "$res"
if [ "${#dt[@]}" != 0 ]; then
	python3 "${TOP}/scripts/difftest.py" batch --out "$OUT" --results "$res" "${dt[@]}" ||
		log "difftest's batch found differences (see ${OUT}/difftest/results.tsv)"
	if [ ! -s "$res" ]; then
		mkdir -p "${OUT}/difftest"
		printf 'FAIL\tFAIL\tdifftest/the batch comparison did not run\t\n' >"$res"
	fi
fi

# make shell, driven through a pseudo-terminal on the kernels just built.
rm -f "${OUT}/shell/results.tsv"
rc=0
FLAVOUR=$flavour VARIANT=$variant python3 "${TOP}/scripts/shell-selftest.py" "$OUT" "$@" || rc=$?
# No result, or a failing status with no failed check (the script died),
# is a failure too.
if [ ! -s "${OUT}/shell/results.tsv" ] ||
   { [ "$rc" != 0 ] && ! grep -q '^FAIL' "${OUT}/shell/results.tsv"; }; then
	mkdir -p "${OUT}/shell"
	printf 'FAIL\tFAIL\tshell/scripted sessions ended with status %s\t\n' "$rc" >>"${OUT}/shell/results.tsv"
fi
[ "$rc" = 0 ] || log "make shell's scripted sessions failed (see ${OUT}/shell/)"

echo
echo "Summary ($flavour kernels, $variant):"
total_p=0 total_f=0 total_s=0
for arch in judge "$@" ${dt[@]:+difftest} shell; do
	summarize "$arch"
	total_p=$((total_p + sum_pass)) total_f=$((total_f + sum_fail))
	total_s=$((total_s + sum_skip))
done
echo "$total_p passed, $total_f failed, $total_s skipped"
[ "$total_f" = 0 ]
