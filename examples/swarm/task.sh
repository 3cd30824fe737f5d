#!/bin/sh
# What runs inside the swarm's containers (installed as /usr/local/bin/proctor-swarm by image.sh):
#   proctor-swarm shard   one task of the shard job: claim a shard, run it (resuming its own file), mark it done
#   proctor-swarm merge   the merge job: the shards' files on /trials into one scorecard (exit 2: refused)
#   proctor-swarm sweep   the sweep job (one task per node): what a killed shard left on this node's engine
#
# Why claims instead of the task slot: on Docker 20.10 one replica of a replicated job renders
# {{.Task.Slot}} as the node id, so a task cannot know its shard from its slot. Each task takes the
# first shard that is neither done nor held by a live holder instead. A claim is a file on the shared
# volume: /trials/claims/shard-K.G is attempt G of shard K, made with link(2), which is atomic and
# exclusive on every file system a volume driver offers (local, NFS v2-v4, CephFS), so of two tasks
# racing for an attempt exactly one gets it. Claims are never removed: a dead holder is superseded by
# attempt G+1, so there is no stale lock to break and no two tasks can break the same one. A holder is
# dead when the engine says so (same node: its container is not running, or gone) or, on another
# node, when its heartbeat (the claim's mtime, touched every HEARTBEAT s) is older than LEASE s by the
# volume's own clock. flock(2) was the other way: on one node the kernel frees it the moment a holder
# dies, but over NFS v3 or a FUSE volume a dead node's lock is never (or only on its reboot) released,
# and a CephFS lock of a partitioned client waits for its session to time out; the engine cannot vouch
# for a container on another node either, hence the lease there.
# Attempts count retries: Swarm 20.10 restarts a replicated job's failed task without end (it ignores
# --restart-max-attempts for jobs), so the claim that would be attempt ATTEMPTS gives the shard up
# instead (shard-K.failed) and the merge refuses it, naming it.
set -eu

ROOT=${TRIALS_DIR:-/trials}
CLAIMS=$ROOT/claims
SHARDS=${SHARDS:?SHARDS is the number of shards}
LANE=${LANE:-suite}
ATTEMPTS=${ATTEMPTS:-3}
LEASE=${LEASE:-120}
HEARTBEAT=${HEARTBEAT:-20}
POLL=${POLL:-10}
RUN_NAME=${RUN_NAME:-proctor}
SCRATCH=${SCRATCH:-/var/lib/proctor-swarm}
NODE=${SHARD_NODE:-}
# This container's full id, from the engine's own bind mount of /etc/hostname.
ME=$(sed -n 's#.*/containers/\([0-9a-f]\{64\}\)/hostname .*#\1#p' /proc/self/mountinfo | head -n 1)
[ -n "$ME" ] || ME=$(hostname)

say() { printf 'proctor-swarm: %s\n' "$*" >&2; }

# The seal key (run.sh's SEAL_KEY_SECRET), when given: agent-eval reads it from this variable by name
# and removes it from what its trials see; shard and merge get the flag.
SEAL_FLAGS=""
if [ -r /run/secrets/seal-key ]; then
  PROCTOR_SEAL_KEY=$(cat /run/secrets/seal-key)
  export PROCTOR_SEAL_KEY
  SEAL_FLAGS="--seal-key-env PROCTOR_SEAL_KEY"
fi

# The run id of shard K's agent-eval: its containers, images, networks and scratch dirs carry it.
run_id() { printf '%s-shard-%s' "$RUN_NAME" "$1"; }

# Removes what earlier attempts of shard K left on this node (a killed shard cannot clean up).
sweep_shard() {
  id=$(run_id "$1")
  ids=$(docker ps -aq --filter "label=proctor.run=$id")
  if [ -n "$ids" ]; then say "removing $(echo "$ids" | wc -l) container(s) of $id"; docker rm -f -v $ids >/dev/null; fi
  ids=$(docker image ls -q --filter "label=proctor.run=$id")
  if [ -n "$ids" ]; then docker rmi -f $ids >/dev/null; fi
  ids=$(docker network ls -q --filter "label=proctor.run=$id")
  if [ -n "$ids" ]; then docker network rm $ids >/dev/null; fi
  rm -rf "$SCRATCH"/proctor-docker."$id".*
}

# The highest attempt of shard K (empty: none yet).
top_attempt() {
  ls "$CLAIMS" | sed -n "s/^shard-$1\.\([0-9][0-9]*\)\$/\1/p" | sort -n | tail -n 1
}

settled() { [ -e "$CLAIMS/shard-$1.done" ] || [ -e "$CLAIMS/shard-$1.failed" ]; }

field() { sed -n "s/^$1=//p" "$2"; }

# Whether the holder named in claim file $1 lives.
alive() {
  if [ "$(field node "$1")" = "$NODE" ]; then
    if out=$(docker inspect --type container --format '{{.State.Running}}' "$(field container "$1")" 2>&1); then
      [ "$out" = true ]
      return
    fi
    case $out in *"No such"*) return 1 ;; esac
    say "cannot ask the engine about $(field container "$1"): $out (taken as alive)"
    return 0
  fi
  clock=$CLAIMS/.clock.$ME
  touch "$clock"
  age=$(($(stat -c %Y "$clock") - $(stat -c %Y "$1")))
  rm -f "$clock"
  [ "$age" -lt "$LEASE" ]
}

# Claims the next attempt of shard K if its last holder is dead; sets CLAIM. Gives the shard up
# (shard-K.failed) instead when that attempt would be the ATTEMPTS-th plus one.
claim() {
  top=$(top_attempt "$1")
  next=0
  if [ -n "$top" ]; then
    if alive "$CLAIMS/shard-$1.$top"; then return 1; fi
    # A holder marks its shard done before it exits: seen after its death, the mark is there.
    if settled "$1"; then return 1; fi
    next=$((top + 1))
  fi
  rec=$CLAIMS/.claim.$ME.$1.$next
  printf 'node=%s\ncontainer=%s\ntask=%s\n' "$NODE" "$ME" "${SHARD_TASK:-}" >"$rec"
  if [ "$next" -ge "$ATTEMPTS" ]; then
    if ln "$rec" "$CLAIMS/shard-$1.failed" 2>/dev/null; then
      say "shard $1/$SHARDS: $ATTEMPTS attempts failed or died; given up (the merge will refuse it)"
    fi
    rm -f "$rec"
    return 1
  fi
  ln "$rec" "$CLAIMS/shard-$1.$next" 2>/dev/null || true
  # Two links mean this link(2) made the claim (NFS may answer EEXIST to a retried link that did).
  links=$(stat -c %h "$rec")
  rm -f "$rec"
  [ "$links" = 2 ] || return 1
  CLAIM=$CLAIMS/shard-$1.$next
  say "shard $1/$SHARDS: attempt $next, held by container $ME"
}

# Runs a command with SIGTERM passed on (what Swarm sends on a drained node or `docker service rm`):
# agent-eval then removes the trial containers it started before it exits.
forward() {
  "$@" &
  child=$!
  trap 'kill -TERM "$child" 2>/dev/null' TERM
  status=0
  wait "$child" || status=$?
  # A trapped signal ends the first wait early; the second one gets the command's own exit.
  if kill -0 "$child" 2>/dev/null; then wait "$child" || status=$?; fi
  trap - TERM
  return "$status"
}

# The lane's command for shard K; its files go to /trials/shard-K/.
run_lane() {
  dir=$ROOT/shard-$1
  mkdir -p "$dir"
  case $LANE in
    suite)
      # --resume on a first attempt starts the file with the shard's header; on a retry it keeps
      # the trials the dead attempt finished and runs the rest.
      # Its scratch dirs under SCRATCH, its containers labelled with a run id the next attempt knows.
      export TMPDIR="$SCRATCH" PROCTOR_RUN_ID="$(run_id "$1")"
      # shellcheck disable=SC2086 # SEAL_FLAGS and SUITE_FLAGS are lists of flags
      forward agent-eval suite "${SUITE:?SUITE is the suite file}" \
        --shard "$1/$SHARDS" --trials "$dir/trials.jsonl" --resume $SEAL_FLAGS ${SUITE_FLAGS:-}
      ;;
    steps)
      # A replay has no trials file to resume: a retry replays the shard again, and its scorecard
      # reaches its name only whole and only from an attempt that succeeded.
      part=$dir/.scorecard.$ME.json
      # shellcheck disable=SC2086 # STEPS_FLAGS is a list of flags
      forward eval-steps run --suite "${STEPS:?STEPS is the step suite folder}" --shard "$1/$SHARDS" \
        --scorecard "$part" ${STEPS_FLAGS:-} || return $?
      mv "$part" "$dir/scorecard.json"
      ;;
    *)
      say "LANE must be suite or steps, not \"$LANE\""
      return 2
      ;;
  esac
}

# Fails when SCRATCH is not this node's own path: the model bridge's socket dir under it is
# bind-mounted into sibling trial containers by the node's engine, which resolves host paths.
check_scratch() {
  probe=$SCRATCH/.probe-$ME
  : >"$probe"
  image=$(docker inspect --type container --format '{{.Image}}' "$ME")
  if ! docker run --rm --pull=never --network none -v "$SCRATCH:/probe:ro" "$image" test -e "/probe/.probe-$ME"; then
    rm -f "$probe"
    say "SCRATCH=$SCRATCH is not mounted at the same path on this node (--mount type=bind,source=$SCRATCH,destination=$SCRATCH)"
    return 1
  fi
  rm -f "$probe"
}

shard() {
  mkdir -p "$CLAIMS" "$SCRATCH"
  if [ -r /run/secrets/model-key ]; then export "${MODEL_KEY_ENV:-ANTHROPIC_API_KEY}=$(cat /run/secrets/model-key)"; fi
  for image in /evals/images/*.tar; do
    if [ -e "$image" ]; then docker load -q -i "$image" >/dev/null; fi
  done
  if [ "$LANE" = suite ]; then check_scratch; fi
  while :; do
    open=0
    k=0
    while [ "$k" -lt "$SHARDS" ]; do
      if ! settled "$k"; then
        if claim "$k"; then
          (while sleep "$HEARTBEAT"; do touch "$CLAIM"; done) >/dev/null 2>&1 &
          beat=$!
          if [ "$LANE" = suite ]; then sweep_shard "$k"; fi
          rc=0
          run_lane "$k" || rc=$?
          kill "$beat" 2>/dev/null || true
          if [ "$rc" -ne 0 ]; then
            say "shard $k/$SHARDS: exit $rc (Swarm starts another task, which claims the next attempt)"
            exit "$rc"
          fi
          ln "$CLAIM" "$CLAIMS/shard-$k.done" 2>/dev/null || true
          say "shard $k/$SHARDS: done"
          exit 0
        fi
        # Held by a live holder (a shard given up just now is settled).
        if ! settled "$k"; then open=1; fi
      fi
      k=$((k + 1))
    done
    if [ "$open" = 0 ]; then
      say "every shard is done or given up"
      exit 0
    fi
    sleep "$POLL"
  done
}

merge() {
  for f in "$CLAIMS"/shard-*.failed; do
    if [ -e "$f" ]; then say "$(basename "$f" .failed) was given up after $ATTEMPTS attempts"; fi
  done
  case $LANE in
    suite)
      # shellcheck disable=SC2086 # SEAL_FLAGS and MERGE_FLAGS are lists of flags
      exec agent-eval suite merge "${SUITE:?SUITE is the suite file}" "$ROOT"/shard-*/trials.jsonl \
        --scorecard "$ROOT/scorecard.json" --report "$ROOT/report.html" $SEAL_FLAGS ${MERGE_FLAGS:-}
      ;;
    steps)
      # shellcheck disable=SC2086 # MERGE_FLAGS is a list of flags
      exec eval-steps merge "$ROOT"/shard-*/scorecard.json --scorecard "$ROOT/scorecard.json" ${MERGE_FLAGS:-}
      ;;
    *)
      say "LANE must be suite or steps, not \"$LANE\""
      exit 2
      ;;
  esac
}

# Docker 20.10 keeps a finished job task's container after `docker service rm`, on every node: the
# stopped ones of this run go here, and this task's own, once it has exited, with a helper.
sweep() {
  k=0
  while [ "$k" -lt "$SHARDS" ]; do
    sweep_shard "$k"
    k=$((k + 1))
  done
  # (docker rm, not prune: the engine runs one prune at a time and refuses a second.)
  ids=$(docker ps -aq --filter "label=proctor.swarm=$RUN_NAME" --filter status=exited --filter status=created)
  if [ -n "$ids" ]; then docker rm -v $ids >/dev/null || true; fi
  image=$(docker inspect --type container --format '{{.Image}}' "$ME")
  docker run -d --rm --pull=never --network none --label "proctor.swarm=$RUN_NAME" \
    -v /var/run/docker.sock:/var/run/docker.sock --entrypoint sh "$image" \
    -c 'docker wait "$1" >/dev/null && docker rm "$1" >/dev/null' reaper "$ME" >/dev/null
}

case ${1:-} in
  shard) shard ;;
  merge) merge ;;
  sweep) sweep ;;
  *)
    say "usage: proctor-swarm shard|merge|sweep"
    exit 2
    ;;
esac
