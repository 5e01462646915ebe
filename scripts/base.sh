#!/usr/bin/env bash
# Make sure the pinned base exists as a one-commit git repository in the cache
# (tag "base"), fetching, verifying and extracting the Debian package as
# needed.  Prints the base commit.  "--print-sha" prints the sha256 of the
# downloaded package instead (for moving to a new base).
. "$(dirname "$0")/lib.sh"

deb_name=${BASE_PKG}_${BASE_VERSION//:/%3a}_all.deb
deb=${CACHE}/dl/${deb_name}
stamp=${BASE_GIT}/entry-lab-base

fetch() {
	need apt-get apt
	mkdir -p "${CACHE}/dl"
	if [ ! -f "$deb" ]; then
		log "downloading ${BASE_PKG}=${BASE_VERSION}"
		if ! (cd "${CACHE}/dl" && apt-get download -q \
			"${BASE_PKG}=${BASE_VERSION}") >&2; then
			die "cannot download ${BASE_PKG} version ${BASE_VERSION}.
The series is pinned to that base and will not silently use another.
To move it: try 'apt-get update' first; otherwise pick an available version
('apt-cache policy ${BASE_PKG}'), set BASE_VERSION and BASE_SHA256 in
base.conf (scripts/base.sh --print-sha prints the sum), run 'make tree' and
fix the patches that no longer apply, then 'make export'."
		fi
	fi
}

fetch
sum=$(sha256sum "$deb" | cut -d' ' -f1)
if [ "${1:-}" = --print-sha ]; then
	echo "$sum"
	exit 0
fi
if [ "$sum" != "$BASE_SHA256" ]; then
	rm -f "$deb"
	die "${deb_name}: sha256 $sum does not match base.conf ($BASE_SHA256); removed it"
fi

# Reuse the extracted base when its stamp and commit are intact.
if [ -f "$stamp" ] && [ "$(head -n1 "$stamp")" = "$BASE_SHA256" ]; then
	commit=$(sed -n 2p "$stamp")
	if [ "$(git --git-dir="$BASE_GIT" rev-parse -q --verify "${BASE_REF}^{commit}" 2>/dev/null)" = "$commit" ] &&
	   git --git-dir="$BASE_GIT" cat-file -e "${commit}^{tree}" 2>/dev/null &&
	   ! git --git-dir="$BASE_GIT" rev-list --objects --missing=print "$commit" 2>/dev/null | grep -q '^?'; then
		echo "$commit"
		exit 0
	fi
	log "base repository in ${BASE_GIT} is damaged; extracting again"
fi

need xz xz-utils
rm -rf "$BASE_GIT" "${CACHE}/extract"
mkdir -p "${CACHE}/extract"
log "extracting ${deb_name}"
dpkg-deb --fsys-tarfile "$deb" |
	tar -xO --wildcards './usr/src/linux-source-*.tar.xz' |
	tar -xJ -C "${CACHE}/extract"
src=$(find "${CACHE}/extract" -mindepth 1 -maxdepth 1 -type d | head -n1)
[ -f "$src/Makefile" ] || die "no kernel tree found inside ${deb_name}"
log "committing the base into ${BASE_GIT}"
git init -q --bare "$BASE_GIT"
git --git-dir="$BASE_GIT" config gc.auto 0
export GIT_DIR=$BASE_GIT GIT_WORK_TREE=$src
# The tarball may carry .gitignore files: add everything regardless.
git add -A -f .
git_fixed commit -q -m "Debian ${BASE_PKG} ${BASE_VERSION}"
git tag base
commit=$(git rev-parse HEAD)
unset GIT_DIR GIT_WORK_TREE
rm -rf "${CACHE}/extract"
printf '%s\n%s\n' "$BASE_SHA256" "$commit" > "$stamp"
echo "$commit"
