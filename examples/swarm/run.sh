#!/bin/sh
# A suite (LANE=suite) or a step replay (LANE=steps) as SHARDS shards on a Docker Swarm, from a
# manager node: one replicated job runs the shards (each task claims one: task.sh), a second job
# merges them once every shard is done, a global job sweeps every node of what killed shards left.
# Prints the merge's output (the Markdown scorecard) and exits with its code (2: a shard was refused,
# named on stderr). The scorecard and report stay on the trials volume (/trials/scorecard.json,
# /trials/report.html); the services go. docs/scale-out.md ("Docker Swarm") walks through it.
#
#   IMAGE=proctor-swarm:1 SUITE=/evals/suites/fixture.yaml MODEL_KEY_SECRET=proctor-model-key \
#     examples/swarm/run.sh
#
# IMAGE             the shard image (examples/swarm/image.sh), present on every node
# SHARDS            N (default 4); MAX_CONCURRENT shards at once (default N)
# LANE, SUITE, SUITE_FLAGS        suite: the suite file in the image, more `agent-eval suite` flags
# LANE, STEPS, STEPS_FLAGS        steps: the step suite folder in the image, `eval-steps run` flags
#                                 (--model, --url, --key-env: the key from MODEL_KEY_SECRET)
# MERGE_FLAGS       more flags for the merge (--fail-on hold, --history FILE, ...)
# NAME              the services' prefix and the run ids' (default proctor)
# TRIALS_MOUNT      the --mount of /trials: one node, a bind mount
#                   (type=bind,source=/srv/proctor-trials,destination=/trials); many nodes, a named
#                   volume with a driver every node reaches (default: type=volume,source=NAME-trials,
#                   destination=/trials, the local driver: one node only)
# SCRATCH           a host directory on every node (default /var/lib/proctor-swarm), mounted at the
#                   same path: the trials' model bridge sockets are bind-mounted from it by the engine
# MODEL_KEY_SECRET  a `docker secret` with the model key; MODEL_KEY_ENV its variable (ANTHROPIC_API_KEY)
# SEAL_KEY_SECRET   LANE=suite: a `docker secret` with a seal key (32+ bytes, openssl rand -hex 32): every
#                   shard seals its trials file and the merge refuses one changed on the volume
#                   (docs/scale-out.md, "Sealed shards"); without it the merge checks consistency only
# ATTEMPTS          tries per shard before it is given up (3); LEASE, HEARTBEAT, POLL: task.sh
# RESTART_DELAY     Swarm's pause before a failed task's replacement (5s)
# SHARD_FLAGS       more `docker service create` flags for the shard job (--constraint, --env, ...)
# WAIT_POLL         seconds between this script's looks at the jobs (5)
set -eu

IMAGE=${IMAGE:?IMAGE is the shard image (examples/swarm/image.sh builds it)}
SHARDS=${SHARDS:-4}
NAME=${NAME:-proctor}
LANE=${LANE:-suite}
SCRATCH=${SCRATCH:-/var/lib/proctor-swarm}
TRIALS_MOUNT=${TRIALS_MOUNT:-type=volume,source=$NAME-trials,destination=/trials}
ATTEMPTS=${ATTEMPTS:-3}
WAIT_POLL=${WAIT_POLL:-5}
SECRET=""
if [ -n "${MODEL_KEY_SECRET:-}" ]; then SECRET="--secret source=$MODEL_KEY_SECRET,target=model-key"; fi
SEAL=""
if [ -n "${SEAL_KEY_SECRET:-}" ]; then SEAL="--secret source=$SEAL_KEY_SECRET,target=seal-key"; fi

say() { printf 'run.sh: %s\n' "$*" >&2; }

# docker service create --name $1 with the settings every task of the three jobs shares (task.sh
# reads them), then the rest of the arguments.
create() {
  name=$1
  shift
  docker service create --name "$name" --label "proctor.swarm=$NAME" --container-label "proctor.swarm=$NAME" \
    --no-resolve-image --detach --quiet \
    --env "SHARDS=$SHARDS" --env "LANE=$LANE" --env "RUN_NAME=$NAME" --env "SCRATCH=$SCRATCH" \
    --env "ATTEMPTS=$ATTEMPTS" --env "SUITE=${SUITE:-}" --env "STEPS=${STEPS:-}" "$@" >/dev/null
}

# How many tasks of service $1 are in state $2 (Complete, Failed, ...).
count() { docker service ps "$1" --format '{{.CurrentState}}' | grep -c "^$2" || true; }

# Waits for $2 completed tasks of job $1; gives up once more than $3 of its tasks failed.
wait_job() {
  while [ "$(count "$1" Complete)" -lt "$2" ]; do
    if [ "$(count "$1" Failed)" -gt "$3" ]; then
      say "$1: more than $3 tasks failed; see docker service logs $1"
      return 1
    fi
    sleep "$WAIT_POLL"
  done
}

# Interrupted: the jobs go; their tasks get SIGTERM, and each shard's agent-eval removes its trials'
# containers before it exits (within the 90 s grace). The trials volume and its files stay.
trap 'docker service rm "$NAME-shards" "$NAME-merge" "$NAME-sweep" >/dev/null 2>&1; exit 130' INT TERM

say "$SHARDS shards of $LANE, /trials on $TRIALS_MOUNT"
# shellcheck disable=SC2086 # SECRET and SHARD_FLAGS are lists of words
create "$NAME-shards" --mode replicated-job --replicas "$SHARDS" --max-concurrent "${MAX_CONCURRENT:-$SHARDS}" \
  --restart-condition on-failure --restart-delay "${RESTART_DELAY:-5s}" --stop-grace-period 90s --init \
  --network host \
  --mount type=bind,source=/var/run/docker.sock,destination=/var/run/docker.sock \
  --mount "type=bind,source=$SCRATCH,destination=$SCRATCH" --mount "$TRIALS_MOUNT" \
  --env "SUITE_FLAGS=${SUITE_FLAGS:-}" --env "STEPS_FLAGS=${STEPS_FLAGS:-}" \
  --env "LEASE=${LEASE:-120}" --env "HEARTBEAT=${HEARTBEAT:-20}" --env "POLL=${POLL:-10}" \
  --env "MODEL_KEY_ENV=${MODEL_KEY_ENV:-ANTHROPIC_API_KEY}" \
  --env 'SHARD_NODE={{.Node.ID}}' --env 'SHARD_TASK={{.Task.ID}}' \
  $SECRET $SEAL ${SHARD_FLAGS:-} "$IMAGE" proctor-swarm shard
# Each shard fails at most ATTEMPTS times before a task gives it up and completes; more failures
# than that have another cause (a bad image, SCRATCH missing on a node) and would go on forever.
rc=0
wait_job "$NAME-shards" "$SHARDS" "$((SHARDS * (ATTEMPTS + 1)))" || rc=$?

if [ "$rc" = 0 ]; then
  say "every shard is done or given up: merging"
  # shellcheck disable=SC2086 # SEAL is a list of words
  create "$NAME-merge" --mode replicated-job --replicas 1 --restart-condition none \
    --mount "$TRIALS_MOUNT" --env "MERGE_FLAGS=${MERGE_FLAGS:-}" $SEAL "$IMAGE" proctor-swarm merge
  while [ "$(count "$NAME-merge" Complete)" = 0 ] && [ "$(count "$NAME-merge" Failed)" = 0 ]; do
    sleep "$WAIT_POLL"
  done
  docker service logs --raw "$NAME-merge" || say "cannot read $NAME-merge's output; the scorecard is on /trials"
  rc=$(docker inspect --type task --format '{{.Status.ContainerStatus.ExitCode}}' \
    "$(docker service ps -q "$NAME-merge" | head -n 1)" || echo 1)
fi

# The tasks' own lines (claims, attempts, exits) go with the service: shown when something failed.
if [ "$rc" != 0 ]; then docker service logs --raw "$NAME-shards" >&2 || true; fi
docker service rm "$NAME-shards" "$NAME-merge" >/dev/null 2>&1 || true
# What a killed shard left runs on its node's engine: one sweep task on every node removes it, and
# the containers of the jobs' tasks (Docker 20.10 keeps those of finished job tasks).
create "$NAME-sweep" --mode global-job --restart-condition none \
  --mount type=bind,source=/var/run/docker.sock,destination=/var/run/docker.sock \
  --mount "type=bind,source=$SCRATCH,destination=$SCRATCH" "$IMAGE" proctor-swarm sweep
nodes=$(docker node ls --format '{{.Status}} {{.Availability}}' | grep -c '^Ready Active' || true)
wait_job "$NAME-sweep" "$nodes" 0 || true
docker service rm "$NAME-sweep" >/dev/null 2>&1 || true
# This node's last ones (the sweep's, its reaper's) are waited for, bounded.
i=0
while [ -n "$(docker ps -aq --filter "label=proctor.swarm=$NAME")" ] && [ "$i" -lt 120 ]; do
  ids=$(docker ps -aq --filter "label=proctor.swarm=$NAME" --filter status=exited --filter status=created)
  # shellcheck disable=SC2086 # a list of ids
  if [ -n "$ids" ]; then docker rm -v $ids >/dev/null 2>&1 || true; fi
  sleep 1
  i=$((i + 1))
done
say "merge exit $rc; results on $TRIALS_MOUNT"
exit "$rc"
