#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The postable series (docs/series.md), made from this repository's sources.
#
#   series.sh [make]  make series: commit patches/series onto a clean base git
#                     tree, each patch with the new files patches/new-files
#                     assigns to it, check that the result equals what
#                     make apply produces, and write two series of git
#                     format-patch files, each with its cover letter and
#                     its get_maintainer.pl recipients:
#                       $SERIES_DIR/out/c     the C series, patches 0000 to
#                                             $SERIES_C_LAST (default 0008),
#                                             patches/cover-letter-c.txt
#                       $SERIES_DIR/out/rust  the Rust series on top of it,
#                                             as an RFC, patches/cover-letter.txt
#   series.sh am      git am the C series onto a fresh branch at the
#                     "Linux $KERNEL_VERSION" commit, then the Rust series on
#                     top, and check that each ends at the same tree as
#                     make series' commits (make series-check builds it).
#   series.sh bisect  build every commit of the am branch in turn (make
#                     series-bisect): one line per commit, then "N passed,
#                     N failed".
#
# The tree is $SERIES_DIR/linux-$KERNEL_VERSION, a git repository of its own: a second,
# pristine extraction of the Debian linux-source-$KERNEL_VERSION tarball committed once as
# "Linux $KERNEL_VERSION" (tag linux-$KERNEL_VERSION) and reused afterwards. Branches: series (made
# from the patches), series-am (made from the posted files). Nothing in it is
# a source: the folders of this repository are.
#
# Environment: CACHE, KERNEL_VERSION, KERNEL_DEB_VERSION (the Makefile sets them);
# SERIES_DIR (default $CACHE/series). Required, each "Name <address>" and
# never taken from git config (see identities() below): SERIES_SIGNOFF (the
# Signed-off-by that replaces each patch's "Signed-off-by: @POSTER@", the
# committer and the cover letters' sender), SERIES_FROM (the author of the
# project's own patches, From: <$SERIES_PROJECT_EMAIL>, default
# sched-rust@localhost; the ported ones keep their authors) and
# SERIES_MAINTAINER (the "M:" of the MAINTAINERS entry the series adds, in
# place of its "M: @POSTER@"); without them make series stops. SERIES_C_LAST: the
# last patch of the C series (default 0008). SERIES_FORMAT_ARGS: extra git
# format-patch arguments (e.g. "-v2"). For bisect: SERIES_KOUT (its build folder),
# SERIES_CONFIG (the .config to build each commit with), SERIES_BISECT_FROM
# (a patch number: build from that patch of patches/series on, after a change
# to it or a later one; the earlier commits are reported as skipped),
# SERIES_FIRST_RUST
# (the number of the first patch allowed to bring Rust into kernel/sched,
# default 0015), SERIES_KMAKE (the command that runs the kernel's make with
# the project's toolchain; the Makefile passes "make series-kmake").
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CACHE:-$top/.cache}
KERNEL_VERSION=${KERNEL_VERSION:?KERNEL_VERSION must be set (the Makefile sets it)}
KERNEL_DEB_VERSION=${KERNEL_DEB_VERSION:?}
SERIES_DIR=${SERIES_DIR:-$CACHE/series}
tree=$SERIES_DIR/linux-$KERNEL_VERSION
out=$SERIES_DIR/out
# The last patch of the C series; the Rust series is the rest.
c_last=${SERIES_C_LAST:-0008}
base_tag=linux-$KERNEL_VERSION
# The From: of the project's own patches: make series gives them SERIES_FROM.
project_email=${SERIES_PROJECT_EMAIL:-sched-rust@localhost}
placeholder='Signed-off-by: @POSTER@'

log() { printf 'series: %s\n' "$*"; }
warn() { printf 'series: WARNING: %s\n' "$*" >&2; }
die() { printf 'series: error: %s\n' "$*" >&2; exit 1; }

g() { git -C "$tree" "$@"; }

# A fixed identity and date for the base commit, so that its id depends on
# the tarball alone.
base_env=(GIT_AUTHOR_NAME="Linux $KERNEL_VERSION" GIT_AUTHOR_EMAIL="linux-$KERNEL_VERSION@tarball"
	  GIT_COMMITTER_NAME="Linux $KERNEL_VERSION" GIT_COMMITTER_EMAIL="linux-$KERNEL_VERSION@tarball"
	  GIT_AUTHOR_DATE="@0 +0000" GIT_COMMITTER_DATE="@0 +0000")

# 1. The clean base tree, once.
base_tree() {
	if g rev-parse -q --verify "refs/tags/$base_tag" >/dev/null 2>&1; then
		return 0
	fi
	log "making the clean $KERNEL_VERSION git tree in $tree (once; a few minutes)"
	local deb
	deb=$(ls "$CACHE/debs/linux-source-${KERNEL_VERSION}_${KERNEL_DEB_VERSION//:/%3a}_all.deb" 2>/dev/null |
	      head -n1 || true)
	rm -rf "$tree"
	if [ -n "$deb" ]; then
		local tmp=$SERIES_DIR/deb-root
		mkdir -p "$SERIES_DIR"
		rm -rf "$tmp"
		dpkg-deb -x "$deb" "$tmp"
		local tarball
		tarball=$(ls "$tmp"/usr/src/linux-source-"$KERNEL_VERSION"*.tar.xz | head -n1)
		mkdir -p "$tree"
		tar -xJf "$tarball" -C "$tree" --strip-components=1
		rm -rf "$tmp"
		echo "linux-source-$KERNEL_VERSION $KERNEL_DEB_VERSION" > "$tree/.sched-rust-extracted"
	else
		# kernel-src.sh fetches the .deb into $CACHE/debs and extracts it.
		KSRC=$tree CACHE=$CACHE KERNEL_DEB_VERSION=$KERNEL_DEB_VERSION "$top/scripts/kernel-src.sh"
	fi
	local what
	what=$(cat "$tree/.sched-rust-extracted")
	rm -f "$tree/.sched-rust-extracted"
	g init -q -b base
	# The tarball is the source: add every file, even those a .gitignore names.
	g add -A -f .
	env "${base_env[@]}" git -C "$tree" commit -q --no-verify \
		-m "Linux $KERNEL_VERSION" -m "The $what tree, extracted from its tarball."
	g tag "$base_tag"
	{
		echo '/.sched-rust-patches/'
		echo '/.sched-rust-extracted'
	} >> "$tree/.git/info/exclude"
	log "clean tree committed: $(g log --oneline -1 "$base_tag")"
}

# patches/series, without comments and empty lines.
series_list() { grep -v -e '^#' -e '^[[:space:]]*$' "$top/patches/series"; }

# The file of this repository that is the new file $1 of the tree.
new_file_source() {
	local path=$1 d
	if [ "$path" = kernel/sched/Kconfig.rust ]; then
		echo "$top/Kconfig"
		return
	fi
	for d in rust kernel-glue kunit-tests bench; do
		if [ -f "$top/$d/$path" ]; then
			echo "$top/$d/$path"
			return
		fi
	done
	die "patches/new-files: no source for $path in rust/ kernel-glue/ kunit-tests/ bench/"
}

# "<number> <path>" lines of patches/new-files (not its "option" lines).
new_files() { grep -v -e '^#' -e '^[[:space:]]*$' -e '^[0-9]* option ' "$top/patches/new-files"; }

# The identities of the posted files, each "Name <address>", each taken only
# from its own explicit setting (a make variable or the environment), never
# from the git identity of whoever runs make series: running a target makes
# nobody an author, a signer or a maintainer.
#   SERIES_SIGNOFF     the "Signed-off-by:" that replaces each patch's
#                      "Signed-off-by: @POSTER@" line (Developer's Certificate
#                      of Origin), the committer and the cover letters' sender
#   SERIES_FROM        the author (From:) of the project's own patches, those
#                      whose From: is <$SERIES_PROJECT_EMAIL>; the ported ones
#                      keep their authors
#   SERIES_MAINTAINER  the "M:" of the MAINTAINERS entry the series adds, in
#                      place of its "M: @POSTER@"
# identity VAR: the value of VAR, checked; stops when it is unset or malformed.
identity() {
	local var=$1 who=${!1:-}
	[ -n "$who" ] || return 1
	[[ $who =~ ^[^\<\>@]+\ \<[^\<\>@\ ]+@[^\<\>\ ]+\>$ ]] ||
		die "$var='$who' is not 'Name <address>'"
	[[ $who != *@POSTER@* ]] || die "$var must not be the placeholder @POSTER@"
	printf '%s\n' "$who"
}

# Sets signoff, author_from and maintainer, or stops naming every missing
# variable.
identities() {
	local missing=() v
	for v in SERIES_SIGNOFF SERIES_FROM SERIES_MAINTAINER; do
		[ -n "${!v:-}" ] || missing+=("$v")
	done
	[ ${#missing[@]} -eq 0 ] ||
		die "set ${missing[*]} (each 'Name <address>'; make series ${missing[0]}='Name <address>' ...):
  SERIES_SIGNOFF     replaces each patch's 'Signed-off-by: @POSTER@' (DCO); committer and sender
  SERIES_FROM        the From: (author) of the project's own patches (From: <$project_email>)
  SERIES_MAINTAINER  the M: line of the MAINTAINERS entry the series adds
make series takes none of them from git config: running it makes nobody an author, a signer or a maintainer"
	signoff=$(identity SERIES_SIGNOFF)
	author_from=$(identity SERIES_FROM)
	maintainer=$(identity SERIES_MAINTAINER)
}

# fill_maintainer PREFIX FILE: SERIES_MAINTAINER in place of the "M: @POSTER@"
# line of the MAINTAINERS entry the series adds, in FILE, each line starting
# with PREFIX ("+" in a diff, "" in MAINTAINERS itself).
fill_maintainer() {
	local who
	who=$(sed 's/[&/\]/\\&/g' <<<"$maintainer")
	sed -i "s/^\($1M:[[:space:]]*\)@POSTER@\$/\1$who/" "$2"
}

# 2. make series.
make_series() {
	local signoff author_from maintainer
	identities
	base_tree
	mapfile -t series < <(series_list)
	[ ${#series[@]} -gt 0 ] || die "patches/series is empty"

	# Every entry of new-files names a patch of the series and a file we have.
	local nums=" " p n path
	for p in "${series[@]}"; do
		[ -f "$top/patches/$p" ] || die "patches/series lists $p, which does not exist"
		[[ ${p:0:4} =~ ^[0-9]{4}$ ]] || die "patches/series: $p does not start with a 4-digit number"
		[[ $nums != *" ${p:0:4} "* ]] || die "patches/series lists patch ${p:0:4} twice"
		nums+="${p:0:4} "
	done
	while read -r n path; do
		[[ $nums == *" $n "* ]] ||
			die "patches/new-files assigns $path to patch $n, which is not in patches/series"
		new_file_source "$path" >/dev/null
	done < <(new_files)
	"$top/scripts/new_file_at.py" --check || die "patches/new-files does not match the files"
	# The file names are numbered in the order the patches apply.
	local listed named
	listed=$(cat "$top/patches/series" "$top/patches/series-local" | grep -v -e '^#' -e '^[[:space:]]*$')
	named=$(cd "$top/patches" && ls -- *.patch)
	[ "$listed" = "$named" ] ||
		die "patches/*.patch are not named in the order of patches/series and series-local:
$(diff <(echo "$listed") <(echo "$named") || true)"

	local committer_name committer_email
	committer_name=${signoff% <*}
	committer_email=${signoff##*<}
	committer_email=${committer_email%>}
	local from_name from_email
	from_name=${author_from% <*}
	from_email=${author_from##*<}
	from_email=${from_email%>}
	printf '%s\n' "${series[@]}" | grep -q "^$c_last" ||
		die "SERIES_C_LAST=$c_last: no such patch in patches/series"
	log "Signed-off-by (SERIES_SIGNOFF, also committer and sender): $signoff"
	log "From: of the project's own patches (SERIES_FROM): $author_from"
	log "MAINTAINERS M: (SERIES_MAINTAINER): $maintainer"

	g checkout -q -f -B series "$base_tag"
	g clean -q -fdx
	local work=$SERIES_DIR/work
	rm -rf "$work"
	mkdir -p "$work"
	local i=0 info msg diff subject author email date sob nsob
	for p in "${series[@]}"; do
		i=$((i + 1))
		n=${p:0:4}
		git mailinfo -u "$work/msg" "$work/diff" < "$top/patches/$p" > "$work/info" ||
			die "$p: git mailinfo cannot read it"
		subject=$(sed -n 's/^Subject: //p' "$work/info")
		author=$(sed -n 's/^Author: //p' "$work/info")
		email=$(sed -n 's/^Email: //p' "$work/info")
		date=$(sed -n 's/^Date: //p' "$work/info")
		[ -n "$subject" ] && [ -n "$author" ] && [ -n "$email" ] && [ -n "$date" ] ||
			die "$p: the header lacks one of From:, Date:, Subject:"
		if grep -q '^diff --git ' "$work/diff"; then
			fill_maintainer + "$work/diff"
			git -C "$tree" apply --index --whitespace=nowarn "$work/diff" ||
				die "$p: its diff does not apply with git apply after the patches before it"
		fi
		local added=0
		while read -r nn path; do
			if [ "$nn" = "$n" ]; then
				[ ! -e "$tree/$path" ] || die "$p: the new file $path already exists in the tree"
				added=$((added + 1))
			elif [ ! -e "$tree/$path" ]; then
				continue	# brought by a later patch
			fi
			# As it stands after this patch: a file with one entry per
			# option gains the entries of this patch's options.
			mkdir -p "$(dirname "$tree/$path")"
			"$top/scripts/new_file_at.py" "$path" "$n" > "$tree/$path" ||
				die "$p: cannot write the new file $path as it stands after this patch"
			g add -f -- "$path"
		done < <(new_files)
		if g diff --cached --quiet; then
			die "$p: changes nothing (no diff and no new file)"
		fi
		# The message: subject, empty line, body; SERIES_SIGNOFF's sign-off.
		{
			printf '%s\n\n' "$subject"
			cat "$work/msg"
		} > "$work/commit-msg"
		nsob=$(grep -cxF "$placeholder" "$work/commit-msg" || true)
		[ "$nsob" -le 1 ] || die "$p: more than one '$placeholder' line"
		[ "$nsob" -eq 1 ] || die "$p: no '$placeholder' line: SERIES_SIGNOFF cannot sign it off"
		sob="Signed-off-by: $signoff"
		awk -v ph="$placeholder" -v sob="$sob" '$0 == ph { $0 = sob } { print }' \
			"$work/commit-msg" > "$work/commit-msg.new"
		mv "$work/commit-msg.new" "$work/commit-msg"
		# The project's own patches are SERIES_FROM's.
		if [ "$email" = "$project_email" ]; then
			author=$from_name
			email=$from_email
		fi
		GIT_AUTHOR_NAME=$author GIT_AUTHOR_EMAIL=$email GIT_AUTHOR_DATE=$date \
		GIT_COMMITTER_NAME=$committer_name GIT_COMMITTER_EMAIL=$committer_email \
		GIT_COMMITTER_DATE=$date \
			git -C "$tree" commit -q --no-verify --cleanup=verbatim -F "$work/commit-msg"
		log "$(printf '%2d' "$i") $p: $(g diff --shortstat HEAD~1 HEAD | sed 's/^ //')" \
			"($added new file(s)) by $author"
	done

	check_equals_apply

	# The two posted series, each with its cover letter.
	local c_commit
	c_commit=$(g rev-list --reverse "$base_tag..series" |
		sed -n "$(printf '%s\n' "${series[@]}" | grep -n "^$c_last" | cut -d: -f1)p")
	g branch -f series-c "$c_commit"
	rm -rf "$out"
	mkdir -p "$out"
	write_series c "$base_tag" series-c "$top/patches/cover-letter-c.txt" ""
	write_series rust series-c series "$top/patches/cover-letter.txt" "--rfc"
	! grep -rlF '@POSTER@' "$out" || die "a posted file still carries @POSTER@ (above)"
}

# write_series NAME FROM TO COVER EXTRA: git format-patch FROM..TO into
# $out/NAME with COVER as the cover letter, To: the maintainers and Cc: the
# reviewers and lists that the tree's get_maintainer.pl gives for the
# series' changes, and EXTRA format-patch arguments (--rfc).
write_series() {
	local name=$1 from=$2 to=$3 cover=$4 extra=$5 dir=$out/$1 f
	local -a recipients=()
	[ -f "$cover" ] || die "no cover letter $cover"
	g config "branch.$to.description" "$(cat "$cover")"
	# get_maintainer.pl reads the whole series as one diff, with the tree's
	# MAINTAINERS as the series leaves it.
	g diff "$from" "$to" > "$out/$name.diff"
	g checkout -q -f "$to"
	while read -r f; do recipients+=("--to=$f"); done < <(maintainers --m --nor --nol "$out/$name.diff")
	while read -r f; do recipients+=("--cc=$f"); done < <(maintainers --nom --r --l "$out/$name.diff")
	g checkout -q -f series
	rm -f "$out/$name.diff"
	[ ${#recipients[@]} -gt 0 ] || die "get_maintainer.pl found no recipient for the $name series"
	# shellcheck disable=SC2086
	GIT_COMMITTER_NAME=$committer_name GIT_COMMITTER_EMAIL=$committer_email \
		git -C "$tree" format-patch -q --cover-letter --cover-from-description=subject \
		--no-signature --zero-commit $extra ${SERIES_FORMAT_ARGS:-} "${recipients[@]}" \
		-o "$dir" "$from..$to"
	local cover_file
	cover_file=$(ls "$dir"/*0000-cover-letter.patch)
	! grep -q '\*\*\*.*HERE \*\*\*' "$cover_file" || die "the $name cover letter kept git's placeholders"
	log "wrote the $name series, $(ls "$dir" | wc -l) file(s), into $dir" \
		"(${#recipients[@]} recipients):"
	ls "$dir" | sed 's/^/  /'
}

# maintainers OPTION... DIFF: the tree's get_maintainer.pl for DIFF, by the
# files it touches only (no git history, no keywords of commit messages).
maintainers() {
	(cd "$tree" && perl scripts/get_maintainer.pl --no-rolestats --no-git --no-git-fallback \
		--nokeywords "$@") 2>/dev/null | sort -u
}

# The series' last commit must hold exactly the tree make apply makes: apply.sh
# run on the clean tree (detached at the tag, in the same work tree) must give
# the same files, and nothing else.
check_equals_apply() {
	log "checking that the series ends where make apply does (scripts/apply.sh on the clean tree, patches/series only)"
	g checkout -q -f --detach "$base_tag"
	g clean -q -fdx
	local aout
	if ! aout=$(APPLY_POSTED_ONLY=1 KSRC=$tree "$top/scripts/apply.sh" 2>&1); then
		printf '%s\n' "$aout" >&2
		g checkout -q -f series
		die "scripts/apply.sh fails on the clean tree"
	fi
	rm -rf "$tree/.sched-rust-patches"
	# make apply leaves the MAINTAINERS entry's "M: @POSTER@" as the patch has it;
	# the series has SERIES_MAINTAINER there.
	fill_maintainer "" "$tree/MAINTAINERS"
	g add -A -f .
	local diff
	diff=$(g diff --cached --stat series)
	g reset -q
	g checkout -q -f series
	g clean -q -fdx
	if [ -n "$diff" ]; then
		printf '%s\n' "$diff" >&2
		die "MISMATCH: the series' last commit differs from what make apply produces (above: make apply's tree vs the series)"
	fi
	log "ok: the series' last commit has the tree make apply produces"
}

# 3. The posted files, applied with git am: the C series on the base, the
# Rust series on top of it, each ending where make series' commits do.
am_one() { # NAME TAG: git am $out/NAME, then compare with make series' TAG
	local name=$1 tag=$2 before
	mapfile -t files < <(ls "$out/$name"/*.patch 2>/dev/null | grep -v -- '-cover-letter\.patch$')
	[ ${#files[@]} -gt 0 ] || die "no patches in $out/$name (make series)"
	before=$(g rev-parse HEAD)
	if ! GIT_COMMITTER_NAME="sched-rust series" GIT_COMMITTER_EMAIL=series@sched-rust.invalid \
			git -C "$tree" am -q --no-3way "${files[@]}"; then
		g am --abort >/dev/null 2>&1 || true
		die "git am fails on the posted $name series (above)"
	fi
	g diff --quiet "$tag" HEAD ||
		die "git am of the posted $name series ends at another tree than make series' commits"
	[ "$(g rev-list --count "$before..HEAD")" = "${#files[@]}" ] ||
		die "git am made another number of commits than the $name series has patches"
	log "ok: git am applies the ${#files[@]} patches of the $name series ($(g rev-parse --short HEAD))"
}

am_series() {
	g rev-parse -q --verify refs/heads/series >/dev/null || die "run make series first"
	g rev-parse -q --verify refs/heads/series-c >/dev/null || die "run make series first"
	g am --abort >/dev/null 2>&1 || true
	g checkout -q -f -B series-am "$base_tag"
	g clean -q -fdx
	am_one c series-c
	am_one rust series
}

# 4. Every commit builds on its own.
bisect_series() {
	local kout=${SERIES_KOUT:?} config=${SERIES_CONFIG:?} first_rust=${SERIES_FIRST_RUST:-0015}
	[ -f "$config" ] || die "no configuration $config (make series-check builds it)"
	g rev-parse -q --verify refs/heads/series-am >/dev/null || die "run make series-check first"
	mapfile -t series < <(series_list)
	mapfile -t commits < <(g rev-list --reverse "$base_tag..series-am")
	[ ${#commits[@]} -eq ${#series[@]} ] ||
		die "series-am has ${#commits[@]} commits, patches/series ${#series[@]}: run make series-check again"
	mkdir -p "$kout"
	local passed=0 failed=0 skipped=0 i c p n t0 t1 why log_file from=${SERIES_BISECT_FROM:-} rust_at
	# The commits before the first Rust patch must carry no Rust.
	rust_at=$(printf '%s\n' "${series[@]}" | grep -n "^$first_rust" | cut -d: -f1)
	[ -n "$rust_at" ] || die "SERIES_FIRST_RUST=$first_rust: no such patch in patches/series"
	if [ -n "$from" ] && ! printf '%s\n' "${series[@]}" | grep -q "^$from"; then
		die "SERIES_BISECT_FROM=$from: no such patch in patches/series"
	fi
	for i in "${!commits[@]}"; do
		c=${commits[$i]}
		p=${series[$i]}
		n=${p:0:4}
		# Resume at a patch of the series (in series order): the commits
		# before it are those of an earlier run.
		if [ -n "$from" ]; then
			if [ "$n" != "$from" ]; then
				skipped=$((skipped + 1))
				printf 'skip %2d %s\n' $((i + 1)) "$p"
				continue
			fi
			from=
		fi
		g checkout -q -f --detach "$c"
		g clean -q -fdx
		log_file=$SERIES_DIR/bisect-$(printf '%02d' $((i + 1)))-$n.log
		why=
		t0=$(date +%s)
		cp "$config" "$kout/.config"
		if ! $SERIES_KMAKE KSRC="$tree" KOUT="$kout" KTARGETS="olddefconfig bzImage" \
				> "$log_file" 2>&1; then
			why="build failed: $(grep -m1 -E 'error:|Error [0-9]' "$log_file" || tail -n1 "$log_file")"
		fi
		t1=$(date +%s)
		if [ $((i + 1)) -lt "$rust_at" ]; then
			local rs
			rs=$(g ls-tree -r --name-only HEAD kernel/sched | grep '\.rs$' || true)
			[ -z "$rs" ] || why+="${why:+; }Rust in kernel/sched before patch $first_rust: $(echo $rs)"
			if [ -f "$kout/kernel/sched/built-in.a" ] &&
			   grep -q rust < <(ar t "$kout/kernel/sched/built-in.a"); then
				why+="${why:+; }Rust objects in kernel/sched/built-in.a"
			fi
			if [ -f "$kout/System.map" ] && grep -q sched_rust "$kout/System.map"; then
				why+="${why:+; }sched_rust symbols in System.map"
			fi
		fi
		if [ -z "$why" ]; then
			passed=$((passed + 1))
			printf 'ok   %2d %s  %4ds\n' $((i + 1)) "$p" $((t1 - t0))
		else
			failed=$((failed + 1))
			printf 'FAIL %2d %s  %4ds  %s (log: %s)\n' $((i + 1)) "$p" $((t1 - t0)) "$why" "$log_file"
		fi
	done
	g checkout -q -f series-am
	# The commits skipped by SERIES_BISECT_FROM are in the tally, so that a
	# resumed run is not recorded as a whole one.
	if [ "$skipped" -gt 0 ]; then
		echo "$passed passed, $failed failed, $skipped skipped"
	else
		echo "$passed passed, $failed failed"
	fi
	[ "$failed" -eq 0 ]
}

case ${1:-make} in
make) make_series ;;
am) am_series ;;
bisect) bisect_series ;;
base) base_tree ;;
*) die "usage: series.sh [make|am|bisect|base]" ;;
esac
