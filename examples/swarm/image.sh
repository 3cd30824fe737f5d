#!/bin/sh
# Builds the shard image of examples/swarm offline, from the repository root after `npm run build`:
#   examples/swarm/image.sh proctor-swarm:1 [EVALS_DIR]
# FROM proctor-base (BASE, else the one evals/images/build.ts builds or reuses), with dist/proctor
# and its tool links, this machine's docker CLI (static, or linked against a glibc no newer than
# bookworm's), task.sh as proctor-swarm, and EVALS_DIR at /evals (default: evals/suites and
# evals/tasks). Agent images the suite names go to /evals/images/*.tar (`docker save`) when the
# nodes lack them: each shard task loads them into its node's engine. Prints the image id.
set -eu
tag=${1:?usage: image.sh TAG [EVALS_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if [ ! -x "$root/dist/proctor" ]; then
  echo "image.sh: $root/dist/proctor is missing: run npm run build" >&2
  exit 1
fi
cli=$(command -v docker)
base=${BASE:-$(cd "$root" && npx bun evals/images/build.ts --harness base | sed -n 's/.*"tag":"\([^"]*\)".*/\1/p')}
ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
mkdir -p "$ctx/usr/local/bin" "$ctx/evals"
cp -L "$root/dist/proctor" "$ctx/usr/local/bin/proctor"
for tool in "$root"/dist/bin/*; do ln -s proctor "$ctx/usr/local/bin/$(basename "$tool")"; done
cp -L "$cli" "$ctx/usr/local/bin/docker"
cp "$here/task.sh" "$ctx/usr/local/bin/proctor-swarm"
if [ -n "${2:-}" ]; then
  cp -R "$2/." "$ctx/evals/"
else
  cp -R "$root/evals/suites" "$root/evals/tasks" "$ctx/evals/"
fi
docker build -q --build-arg "BASE=$base" -f "$here/Dockerfile" -t "$tag" "$ctx" >/dev/null
# The tools must run in it: a docker CLI linked against a newer glibc would fail only on a node.
docker run --rm --pull=never --network none --entrypoint sh "$tag" -c 'docker --version && agent-eval --version' >/dev/null
docker image inspect --format '{{.Id}}' "$tag"
