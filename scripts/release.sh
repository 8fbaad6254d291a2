#!/usr/bin/env bash
# Release helper for a pi extension published to npm by a tag-triggered workflow.
# The judgment (which level, when) lives in .agents/skills/release/SKILL.md; this script only
# checks, bumps, commits, tests, tags, pushes and verifies. Run with -h for usage.
set -euo pipefail

# ---- CONFIG: the only per-repository part ------------------------------------------------
PACKAGE_NAME="pi-condense"
REPO_SLUG="pi-condense/pi-condense"
FORMER_PACKAGE_NAME="pi-context-prune"
TEST_CMD="npm test"
MAIN_BRANCH="main"
REMOTE="origin"
RELEASE_WORKFLOW="release.yml"
GALLERY_URL="https://pi.dev/packages"
# ---- end of CONFIG ------------------------------------------------------------------------

usage() {
  cat <<EOF
Usage: bash scripts/release.sh <command> [options]

Commands:
  propose                 List commits since the last tag and the [Unreleased] notes; suggest a bump level.
  current                 Release the version already in package.json (no bump).
  patch | minor | major   Bump the version, commit "Release vX.Y.Z", run the tests, create an annotated
                          tag, push ${MAIN_BRANCH} and the tag, then verify.
  verify [X.Y.Z]          Watch the ${RELEASE_WORKFLOW} run for the tag, poll npm, check the pi.dev gallery.
                          Defaults to the package.json version.
  sync-presets [FILE...]  Report npm:${PACKAGE_NAME}@<old> pins in pi settings.json files (user and
                          project, plus any FILE given), and flag git pins and ${FORMER_PACKAGE_NAME} pins.

Options:
  --dry-run      Print every check and step; change nothing (no commit, tag, push, write or fetch).
  --skip-tests   Do not run "${TEST_CMD}" (for dry runs; never for a real release).
  --apply        With sync-presets: rewrite the old npm pins to the current version.
  -h, --help     Show this help.
EOF
}

DRY_RUN=0
SKIP_TESTS=0
APPLY=0
COMMAND=""
ARGS=()
INVOKED_FROM="$PWD"

for arg in "$@"; do
  case "$arg" in
    --dry-run) DRY_RUN=1 ;;
    --skip-tests) SKIP_TESTS=1 ;;
    --apply) APPLY=1 ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "release: unknown option $arg" >&2; usage >&2; exit 2 ;;
    *) if [ -z "$COMMAND" ]; then COMMAND="$arg"; else ARGS+=("$arg"); fi ;;
  esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

BLOCKED=0

say() { printf '%s\n' "$*"; }
die() { printf 'release: %s\n' "$*" >&2; exit 1; }

# Runs a state-changing command, or only prints it in a dry run.
step() {
  local shown
  shown="$(printf '%q ' "$@")"
  if [ "$DRY_RUN" = 1 ]; then
    say "  [dry-run] would run: ${shown% }"
  else
    say "  + ${shown% }"
    "$@"
  fi
}

# A failed check stops a real run; a dry run reports it and goes on.
check() {
  local description="$1"
  shift
  if "$@"; then
    say "  ok       $description"
  elif [ "$DRY_RUN" = 1 ]; then
    say "  BLOCKED  $description (a real run would stop here)"
    BLOCKED=1
  else
    die "check failed: $description"
  fi
}

current_version() { node -p "require('./package.json').version"; }

next_version() {
  local version="$1" level="$2" major minor patch
  IFS=. read -r major minor patch <<<"${version%%-*}"
  case "$level" in
    current) echo "$version" ;;
    patch) echo "$major.$minor.$((patch + 1))" ;;
    minor) echo "$major.$((minor + 1)).0" ;;
    major) echo "$((major + 1)).0.0" ;;
    *) die "unknown level $level" ;;
  esac
}

last_tag() { git describe --tags --abbrev=0 --match 'v[0-9]*' 2>/dev/null || true; }

# Body of the CHANGELOG section headed "## [<version>]" (same extraction as the release workflow).
changelog_section() {
  awk -v heading="## [$1]" '
    index($0, heading) == 1 { found = 1; next }
    found && /^## \[/ { exit }
    found { print }
  ' CHANGELOG.md
}

has_text() { grep -q '[^[:space:]]' <<<"$1"; }

tree_is_clean() { [ -z "$(git status --porcelain)" ]; }
on_main_branch() { [ "$(git rev-parse --abbrev-ref HEAD)" = "$MAIN_BRANCH" ]; }
tag_absent_locally() { ! git rev-parse -q --verify "refs/tags/v$1" >/dev/null; }
tag_absent_on_remote() {
  if ! git remote get-url "$REMOTE" >/dev/null 2>&1; then return 0; fi
  [ -z "$(git ls-remote --tags "$REMOTE" "refs/tags/v$1" 2>/dev/null)" ]
}
up_to_date_with_remote() {
  local remote_head
  if ! git remote get-url "$REMOTE" >/dev/null 2>&1; then return 0; fi
  remote_head="$(git ls-remote "$REMOTE" "refs/heads/$MAIN_BRANCH" 2>/dev/null | cut -f1)"
  [ -z "$remote_head" ] || [ "$remote_head" = "$(git rev-parse HEAD)" ]
}
changelog_has_section() { has_text "$(changelog_section "$1")"; }

cmd_propose() {
  local tag range commits level="patch"
  tag="$(last_tag)"
  if [ -n "$tag" ]; then range="$tag..HEAD"; else range="HEAD"; fi
  say "Current version: $(current_version); last tag: ${tag:-<none>}"
  say ""
  say "Commits since ${tag:-the beginning}:"
  commits="$(git log --no-merges --format='%s' "$range")"
  if has_text "$commits"; then sed 's/^/  - /' <<<"$commits"; else say "  (none)"; fi
  say ""
  say "[Unreleased] notes:"
  local notes
  notes="$(changelog_section "Unreleased")"
  if has_text "$notes"; then sed 's/^/  /' <<<"$notes"; else say "  (empty)"; fi
  if grep -qiE 'BREAKING|!:|^major' <<<"$commits$notes"; then
    level="major"
  elif grep -qiE '^(feat|add)|new (command|config key|setting|tool)|^### Added' <<<"$commits$notes"; then
    level="minor"
  fi
  say ""
  say "Suggested level: $level -> $(next_version "$(current_version)" "$level")"
  say "This is a heuristic. Apply the bump policy in .agents/skills/release/SKILL.md and get approval first."
}

cmd_release() {
  local level="$1" from to
  from="$(current_version)"
  to="$(next_version "$from" "$level")"
  say "Release $PACKAGE_NAME: $from -> $to ($level)$([ "$DRY_RUN" = 1 ] && echo ', dry run')"
  say ""
  say "Checks:"
  check "working tree is clean" tree_is_clean
  check "on branch $MAIN_BRANCH" on_main_branch
  check "$MAIN_BRANCH matches $REMOTE/$MAIN_BRANCH" up_to_date_with_remote
  check "tag v$to does not exist locally" tag_absent_locally "$to"
  check "tag v$to does not exist on $REMOTE" tag_absent_on_remote "$to"
  check "CHANGELOG.md has a non-empty '## [$to]' section" changelog_has_section "$to"
  say ""
  say "Steps:"
  if [ "$level" != "current" ]; then
    step npm version "$to" --no-git-tag-version
    step git add package.json
  fi
  step git commit --allow-empty -m "Release v$to"
  if [ "$SKIP_TESTS" = 1 ]; then
    say "  skipped  tests (--skip-tests)"
  elif [ "$DRY_RUN" = 1 ]; then
    say "  [dry-run] would run: $TEST_CMD (on failure: git reset --hard HEAD~1, then stop)"
  else
    say "  + $TEST_CMD"
    if ! bash -c "$TEST_CMD"; then
      git reset --hard HEAD~1
      die "tests failed; the release commit was reset and nothing was tagged or pushed"
    fi
  fi
  step git tag -a "v$to" -m "Release v$to"
  step git push "$REMOTE" "$MAIN_BRANCH"
  step git push "$REMOTE" "v$to"
  say ""
  if [ "$DRY_RUN" = 1 ]; then
    say "  [dry-run] would then run: bash scripts/release.sh verify $to"
    say ""
    if [ "$BLOCKED" = 1 ]; then
      say "Dry run finished: a real run would stop at a BLOCKED check above. Nothing was changed."
    else
      say "Dry run finished: all checks pass. Nothing was changed."
    fi
    return 0
  fi
  cmd_verify "$to"
}

cmd_verify() {
  local version="${1:-$(current_version)}" failures=0 run_id="" attempt
  say "Verify $PACKAGE_NAME $version"
  if [ "$DRY_RUN" = 1 ]; then
    say "  [dry-run] would run: gh run list --repo $REPO_SLUG --workflow $RELEASE_WORKFLOW --branch v$version, then gh run watch --exit-status"
    say "  [dry-run] would poll: npm view $PACKAGE_NAME@$version version"
    say "  [dry-run] would check that $GALLERY_URL mentions $PACKAGE_NAME"
    return 0
  fi

  if command -v gh >/dev/null 2>&1; then
    for attempt in $(seq 1 12); do
      run_id="$(gh run list --repo "$REPO_SLUG" --workflow "$RELEASE_WORKFLOW" --branch "v$version" --limit 1 \
        --json databaseId --jq '.[0].databaseId' 2>/dev/null || true)"
      [ -n "$run_id" ] && break
      sleep 10
    done
    if [ -z "$run_id" ]; then
      say "  FAIL     no $RELEASE_WORKFLOW run found for v$version"
      failures=$((failures + 1))
    elif gh run watch "$run_id" --repo "$REPO_SLUG" --exit-status >/dev/null; then
      say "  ok       workflow run $run_id succeeded"
    else
      say "  FAIL     workflow run $run_id failed: gh run view $run_id --repo $REPO_SLUG --log-failed"
      failures=$((failures + 1))
    fi
  else
    say "  skip     gh is not installed; check the Actions tab of $REPO_SLUG"
  fi

  local published=""
  for attempt in $(seq 1 30); do
    published="$(npm view "$PACKAGE_NAME@$version" version 2>/dev/null || true)"
    [ "$published" = "$version" ] && break
    sleep 10
  done
  if [ "$published" = "$version" ]; then
    say "  ok       npm has $PACKAGE_NAME@$version"
  else
    say "  FAIL     npm does not list $PACKAGE_NAME@$version yet"
    failures=$((failures + 1))
  fi

  if curl -fsSL --max-time 20 "$GALLERY_URL" 2>/dev/null | grep -q "$PACKAGE_NAME"; then
    say "  ok       $GALLERY_URL lists $PACKAGE_NAME"
  else
    say "  warn     $GALLERY_URL does not mention $PACKAGE_NAME (the gallery may lag or render client-side)"
  fi
  [ "$failures" = 0 ] || die "$failures verification(s) failed"
}

cmd_sync_presets() {
  local version files=() file pins stale
  version="$(current_version)"
  files+=("${PI_CODING_AGENT_DIR:-$HOME/.pi/agent}/settings.json" "$INVOKED_FROM/.pi/settings.json")
  if [ "${#ARGS[@]}" -gt 0 ]; then files+=("${ARGS[@]}"); fi
  say "Pinned installs of $PACKAGE_NAME (current version $version)"
  for file in "${files[@]}"; do
    [ -f "$file" ] || { say "  -        $file (absent)"; continue; }
    pins="$(grep -oE "npm:$PACKAGE_NAME@[0-9][0-9A-Za-z.+-]*" "$file" | sort -u || true)"
    stale="$(grep -vxF "npm:$PACKAGE_NAME@$version" <<<"$pins" | sed '/^$/d' || true)"
    if has_text "$stale"; then
      say "  stale    $file: $(tr '\n' ' ' <<<"$stale")"
      if [ "$APPLY" = 1 ]; then
        if [ "$DRY_RUN" = 1 ]; then
          say "  [dry-run] would rewrite them to npm:$PACKAGE_NAME@$version"
        else
          local tmp
          tmp="$(mktemp)"
          sed -E "s#npm:$PACKAGE_NAME@[0-9][0-9A-Za-z.+-]*#npm:$PACKAGE_NAME@$version#g" "$file" >"$tmp"
          cat "$tmp" >"$file"
          rm -f "$tmp"
          say "  fixed    $file -> npm:$PACKAGE_NAME@$version"
        fi
      fi
    elif has_text "$pins"; then
      say "  ok       $file pins the current version"
    else
      say "  ok       $file has no npm version pin"
    fi
    if grep -qE "git:[^\"]*$REPO_SLUG|github\.com/$REPO_SLUG" "$file"; then
      say "  flag     $file installs $PACKAGE_NAME from git; prefer npm:$PACKAGE_NAME@$version"
    fi
    if grep -q "$FORMER_PACKAGE_NAME" "$file"; then
      say "  flag     $file still references the former package $FORMER_PACKAGE_NAME; replace it with npm:$PACKAGE_NAME"
    fi
  done
  if [ "$APPLY" = 0 ]; then say "Report only; add --apply to rewrite stale npm pins."; fi
}

case "$COMMAND" in
  propose) cmd_propose ;;
  current | patch | minor | major) cmd_release "$COMMAND" ;;
  verify) cmd_verify "${ARGS[0]:-}" ;;
  sync-presets) cmd_sync_presets ;;
  "") usage; exit 2 ;;
  *) echo "release: unknown command $COMMAND" >&2; usage >&2; exit 2 ;;
esac
