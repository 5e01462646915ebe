#!/usr/bin/env bash
# judge-selftest.sh: run judge.py on the hand-made console logs of
# tests/judge/ and check that each fails for its stated reason (the control
# passes), so that no hole in the judge can reopen unnoticed.  Needs no
# kernel.  Writes $OUT/judge/results.tsv (one line per case, as the guests'
# results.tsv) and exits non-zero when a case does not end as stated.
. "$(dirname "$0")/lib.sh"

cases=${TOP}/tests/judge
dir=${OUT}/judge
mkdir -p "$dir/work"
# The KUnit parser the real runs use, from the base tree.
kunit=${OUT}/host/kunit
if [ ! -f "$kunit/kunit_parser.py" ]; then
	"${TOP}/scripts/base.sh" >/dev/null
	mkdir -p "$kunit"
	git --git-dir="$BASE_GIT" archive "$BASE_REF" tools/testing/kunit |
		tar -x -C "$dir/work" && cp -r "$dir/work/tools/testing/kunit/." "$kunit/"
fi
require=()
IFS=';' read -r -a pats <<<"$(arch_get arm64 boot_must)"
for p in "${pats[@]}"; do require+=(--require "$p"); done

res=$dir/results.tsv
: >"$res"
sed -e 's/#.*//' "$cases/cases.tbl" | while IFS='|' read -r name config expect; do
	name=$(echo $name)
	[ -n "$name" ] || continue
	config=$(echo $config)
	expect=$(echo "$expect" | sed 's/^ *//;s/ *$//')
	w=$dir/work/$name
	[ "$config" = - ] && config=
	tr ',' '\n' <<<"$config" | sed '/^$/d;s/$/=y/' >"$w.config"
	rc=0
	python3 "${TOP}/scripts/judge.py" --arch arm64 --log "$cases/$name.log" \
		--kunit "$kunit" --results "$w.tsv" --report "$w.parse" \
		--expected "$cases/expected.tbl" --required-tbl "$cases/required.tbl" \
		--variant series \
		--config "$w.config" "${require[@]}" >"$w.out" 2>&1 || rc=$?
	if [ "$expect" = pass ]; then
		if [ "$rc" = 0 ]; then
			v=PASS why="passes"
		else
			v=FAIL why="should pass but the judge said: $(grep -s '^FAIL' "$w.tsv" | head -n3 | cut -f3 | tr '\n' ';')$(tail -n1 "$w.out")"
		fi
	elif [ "$rc" = 1 ] && grep -s '^FAIL' "$w.tsv" | grep -qF -- "$expect"; then
		v=PASS why="fails: $expect"
	else
		v=FAIL why="should fail with \"$expect\" but judge.py exited $rc: $(tail -n1 "$w.out")"
	fi
	printf '%s\t%s\tjudge/%s\t%s\n' "$v" "$v" "$name" "$why" >>"$res"
done
awk -F'\t' '$1 == "FAIL" { bad = 1 } END { exit bad }' "$res"
