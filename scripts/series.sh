#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The postable series (docs/series.md), made from this repository's sources.
#
#   series.sh [make]  make series: commit patches/series onto a clean base git
#                     tree, each patch with the new files patches/new-files
#                     assigns to it, check that the result equals what
#                     make apply produces, and write git format-patch files
#                     and a cover letter (patches/cover-letter.txt) into
#                     $SERIES_DIR/out.
#   series.sh am      git am the written files onto a fresh branch at the
#                     "Linux $KERNEL_VERSION" commit, and check that it ends at the same
#                     tree as make series' commits (make series-check builds it).
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
# SERIES_DIR (default $CACHE/series); SERIES_SIGNOFF="Name <address>" replaces
# the "Signed-off-by: @POSTER@" line of each patch and becomes the committer
# and the cover letter's sender; without it the placeholder stays and a
# warning says so; it also becomes the author of the project's own patches
# (From: <$SERIES_PROJECT_EMAIL>, default sched-rust@localhost): the ported
# ones keep their authors. SERIES_FORMAT_ARGS: extra git format-patch arguments
# (e.g. "-v2" or "--rfc"). For bisect: SERIES_KOUT (its build folder),
# SERIES_CONFIG (the .config to build each commit with), SERIES_BISECT_FROM
# (a patch number: build from that patch of patches/series on, after a change
# to it or a later one; the earlier commits are reported as skipped),
# SERIES_FIRST_RUST
# (the number of the first patch allowed to bring Rust into kernel/sched,
# default 0011), SERIES_KMAKE (the command that runs the kernel's make with
# the project's toolchain; the Makefile passes "make series-kmake").
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CACHE:-$top/.cache}
KERNEL_VERSION=${KERNEL_VERSION:?KERNEL_VERSION must be set (the Makefile sets it)}
KERNEL_DEB_VERSION=${KERNEL_DEB_VERSION:?}
SERIES_DIR=${SERIES_DIR:-$CACHE/series}
tree=$SERIES_DIR/linux-$KERNEL_VERSION
out=$SERIES_DIR/out
base_tag=linux-$KERNEL_VERSION
# The From: of the project's own patches: make series gives them to the poster.
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

check_signoff() {
	[ -z "${SERIES_SIGNOFF:-}" ] && return 0
	[[ $SERIES_SIGNOFF =~ ^[^\<\>]+\ \<[^\<\>@\ ]+@[^\<\>\ ]+\>$ ]] ||
		die "SERIES_SIGNOFF='$SERIES_SIGNOFF' is not 'Name <address>'"
}

# 2. make series.
make_series() {
	check_signoff
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

	local committer_name="sched-rust series" committer_email="series@sched-rust.invalid"
	if [ -n "${SERIES_SIGNOFF:-}" ]; then
		committer_name=${SERIES_SIGNOFF% <*}
		committer_email=${SERIES_SIGNOFF##*<}
		committer_email=${committer_email%>}
	else
		warn "SERIES_SIGNOFF is not set: every patch keeps the line '$placeholder'"
		warn "set SERIES_SIGNOFF='Your Name <you@example.org>' before posting"
	fi

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
		# The message: subject, empty line, body; the poster's sign-off.
		{
			printf '%s\n\n' "$subject"
			cat "$work/msg"
		} > "$work/commit-msg"
		nsob=$(grep -cxF "$placeholder" "$work/commit-msg" || true)
		[ "$nsob" -le 1 ] || die "$p: more than one '$placeholder' line"
		[ "$nsob" -eq 1 ] || warn "$p: no '$placeholder' line: the poster cannot sign it off"
		if [ -n "${SERIES_SIGNOFF:-}" ]; then
			sob="Signed-off-by: $SERIES_SIGNOFF"
			awk -v ph="$placeholder" -v sob="$sob" '$0 == ph { $0 = sob } { print }' \
				"$work/commit-msg" > "$work/commit-msg.new"
			mv "$work/commit-msg.new" "$work/commit-msg"
		fi
		# The project's own patches are the poster's.
		if [ "$email" = "$project_email" ]; then
			if [ -n "${SERIES_SIGNOFF:-}" ]; then
				author=$committer_name
				email=$committer_email
			else
				warn "$p: its author stays the project's placeholder <$project_email>"
			fi
		fi
		GIT_AUTHOR_NAME=$author GIT_AUTHOR_EMAIL=$email GIT_AUTHOR_DATE=$date \
		GIT_COMMITTER_NAME=$committer_name GIT_COMMITTER_EMAIL=$committer_email \
		GIT_COMMITTER_DATE=$date \
			git -C "$tree" commit -q --no-verify --cleanup=verbatim -F "$work/commit-msg"
		log "$(printf '%2d' "$i") $p: $(g diff --shortstat HEAD~1 HEAD | sed 's/^ //')" \
			"($added new file(s)) by $author"
	done

	check_equals_apply

	# The posted files, with the cover letter from patches/cover-letter.txt.
	rm -rf "$out"
	mkdir -p "$out"
	g config branch.series.description "$(cat "$top/patches/cover-letter.txt")"
	# shellcheck disable=SC2086
	GIT_COMMITTER_NAME=$committer_name GIT_COMMITTER_EMAIL=$committer_email \
		git -C "$tree" format-patch -q --cover-letter --cover-from-description=subject \
		--no-signature --zero-commit ${SERIES_FORMAT_ARGS:-} -o "$out" "$base_tag..series"
	local cover
	cover=$(ls "$out"/*0000-cover-letter.patch)
	! grep -q '\*\*\*.*HERE \*\*\*' "$cover" || die "the cover letter kept git's placeholders"
	log "wrote $(ls "$out" | wc -l) file(s) into $out:"
	ls "$out" | sed 's/^/  /'
	if [ -z "${SERIES_SIGNOFF:-}" ]; then
		warn "the patches carry '$placeholder': do not post them (set SERIES_SIGNOFF)"
	fi
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

# 3. The posted files, applied with git am.
am_series() {
	g rev-parse -q --verify refs/heads/series >/dev/null || die "run make series first"
	mapfile -t files < <(ls "$out"/*.patch | grep -v -- '-cover-letter\.patch$')
	[ ${#files[@]} -gt 0 ] || die "no patches in $out (make series)"
	g am --abort >/dev/null 2>&1 || true
	g checkout -q -f -B series-am "$base_tag"
	g clean -q -fdx
	if ! GIT_COMMITTER_NAME="sched-rust series" GIT_COMMITTER_EMAIL=series@sched-rust.invalid \
			git -C "$tree" am -q --no-3way "${files[@]}"; then
		g am --abort >/dev/null 2>&1 || true
		die "git am fails on the posted files (above)"
	fi
	g diff --quiet series series-am ||
		die "git am of the posted files ends at another tree than make series' commits"
	[ "$(g rev-list --count "$base_tag..series-am")" = "${#files[@]}" ] ||
		die "git am made another number of commits than there are patches"
	log "ok: git am applies the ${#files[@]} posted patches onto the clean tree ($(g rev-parse --short series-am))"
}

# 4. Every commit builds on its own.
bisect_series() {
	local kout=${SERIES_KOUT:?} config=${SERIES_CONFIG:?} first_rust=${SERIES_FIRST_RUST:-0011}
	[ -f "$config" ] || die "no configuration $config (make series-check builds it)"
	g rev-parse -q --verify refs/heads/series-am >/dev/null || die "run make series-check first"
	mapfile -t series < <(series_list)
	mapfile -t commits < <(g rev-list --reverse "$base_tag..series-am")
	[ ${#commits[@]} -eq ${#series[@]} ] ||
		die "series-am has ${#commits[@]} commits, patches/series ${#series[@]}: run make series-check again"
	mkdir -p "$kout"
	local passed=0 failed=0 i c p n t0 t1 why log_file from=${SERIES_BISECT_FROM:-} rust_at
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
			[ "$n" = "$from" ] || { printf 'skip %2d %s\n' $((i + 1)) "$p"; continue; }
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
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}

case ${1:-make} in
make) make_series ;;
am) am_series ;;
bisect) bisect_series ;;
base) base_tree ;;
*) die "usage: series.sh [make|am|bisect|base]" ;;
esac
