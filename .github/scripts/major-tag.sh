#!/usr/bin/env bash
# Moves the major tag (v1) onto a release that was just published, run by release.yml's publish job
# after `gh release create`: `uses: owner/proctor@v1` then checks out that release's action, whose
# install step downloads that same release (its package.json version), never a later major.
#   GH_REPO=owner/proctor bash .github/scripts/major-tag.sh v1.4.2 <commit sha>
# Left alone: prereleases (v1.5.0-rc.1) and a release older than the newest of its major (a v1.3.9
# backport after v1.4.2). Needs gh with GH_TOKEN (contents: write) in the environment, never argv.
# Exit codes: 0 moved, created or deliberately left; 1 the GitHub API refused; 2 a malformed tag.
set -euo pipefail

tag="${1:?usage: major-tag.sh TAG SHA}"
sha="${2:?usage: major-tag.sh TAG SHA}"
repo="${GH_REPO:?GH_REPO (owner/name) must be set}"

fail() {
  local code=$1
  shift
  printf '::error title=major-tag::%s\n' "$*" >&2
  exit "$code"
}

if [[ "$tag" =~ ^v([0-9]+)\.[0-9]+\.[0-9]+-.+$ ]]; then
  echo "major-tag: ${tag} is a prerelease; v${BASH_REMATCH[1]} stays where it is" >&2
  exit 0
fi
[[ "$tag" =~ ^v([0-9]+)\.[0-9]+\.[0-9]+$ ]] || fail 2 "Cannot move a major tag for \"${tag}\": expected a release tag like v1.2.3"
major="v${BASH_REMATCH[1]}"
[[ "$sha" =~ ^[0-9a-f]{40}$ ]] || fail 2 "Cannot move ${major} to \"${sha}\": expected a 40-hex commit SHA"

# The newest release of this major, by version (not by date): a backport must not pull v1 back.
refs="$(gh api "repos/${repo}/git/matching-refs/tags/${major}." --jq '.[].ref')" ||
  fail 1 "Cannot list the ${major}.* tags of ${repo}"
newest="$(printf '%s\n' "$refs" | sed 's#^refs/tags/##' | grep -E '^v[0-9]+\.[0-9]+\.[0-9]+$' | sort -V | tail -n 1)"
if [ -n "$newest" ] && [ "$newest" != "$tag" ]; then
  echo "major-tag: ${tag} is older than ${newest}; ${major} stays where it is" >&2
  exit 0
fi

if gh api "repos/${repo}/git/ref/tags/${major}" --silent 2>/dev/null; then
  gh api --method PATCH "repos/${repo}/git/refs/tags/${major}" -f "sha=${sha}" -F force=true --silent ||
    fail 1 "Cannot move ${major} of ${repo} to ${sha}"
  echo "major-tag: moved ${major} to ${tag} (${sha})" >&2
else
  gh api --method POST "repos/${repo}/git/refs" -f "ref=refs/tags/${major}" -f "sha=${sha}" --silent ||
    fail 1 "Cannot create ${major} on ${repo} at ${sha}"
  echo "major-tag: created ${major} at ${tag} (${sha})" >&2
fi
