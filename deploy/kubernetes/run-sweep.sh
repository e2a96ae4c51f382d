#!/usr/bin/env bash
# Runs a fleetsim sweep (or, with --run, a run's replications) on Kubernetes: the scenario into a
# ConfigMap, the Indexed Job of sweep-job.yaml with N shards, then (once every shard is
# complete) the merge Job. Results stay on the fleetsim-results volume under NAME/merged.
#
#   deploy/kubernetes/run-sweep.sh [--run] --shards N --name NAME [--image IMAGE] [--threads T]
#       [--timeout 2h] -- SCENARIO.toml [sweep options, e.g. --vary pool.dgx.nodes=0..18:2,
#       or with --run the run's, e.g. --replications 30]
#
# Needs kubectl with a current context, and the image built from deploy/kubernetes/Dockerfile
# and pushed where the cluster pulls from. Sweep options are passed through a shell variable:
# keep them free of spaces inside values.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
shards=4 name='' image=fleetsim:0.1.0 threads=2 timeout=2h command=sweep
while [[ $# -gt 0 ]]; do
    case $1 in
        --run) command=run; shift ;;
        --shards) shards=$2; shift 2 ;;
        --name) name=$2; shift 2 ;;
        --image) image=$2; shift 2 ;;
        --threads) threads=$2; shift 2 ;;
        --timeout) timeout=$2; shift 2 ;;
        --) shift; break ;;
        -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
        *) echo "run-sweep.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
if [[ -z $name || $# -lt 1 ]]; then
    echo "run-sweep.sh: give --name NAME and, after --, the scenario and its sweep options" >&2
    exit 2
fi
scenario=$1
shift
args="$*"

# Replaces the example values of the manifests (4 shards, the example sweep) by ours.
render() {
    sed -e "s|completions: 4 |completions: $shards |" \
        -e "/name: COMMAND/{n;s|value: \"sweep\"|value: \"$command\"|}" \
        -e "s|parallelism: 4 |parallelism: $shards |" \
        -e "/name: SHARDS/{n;s|value: \"4\"|value: \"$shards\"|}" \
        -e "/name: SWEEP_NAME/{n;s|value: \"hybrid-vs-cloud\"|value: \"$name\"|}" \
        -e "/name: SWEEP_ARGS/{n;s|value: .*|value: \"$args\"|}" \
        -e "/name: THREADS/{n;s|value: \"2\"|value: \"$threads\"|}" \
        -e "s|cpu: \"2\"|cpu: \"$threads\"|" \
        -e "s|image: fleetsim:0.1.0|image: $image|" "$1"
}

kubectl apply -f "$here/results-pvc.yaml"
kubectl create configmap fleetsim-scenario --from-file=scenario.toml="$scenario" \
    --dry-run=client -o yaml | kubectl apply -f -
kubectl delete job fleetsim-sweep fleetsim-merge --ignore-not-found
render "$here/sweep-job.yaml" | kubectl apply -f -
if ! kubectl wait --for=condition=complete job/fleetsim-sweep --timeout="$timeout"; then
    echo "run-sweep.sh: the shards did not all complete; logs of failed pods:" >&2
    kubectl logs -l app=fleetsim,role=shard --tail=20 --prefix >&2 || true
    exit 1
fi
render "$here/merge-job.yaml" | kubectl apply -f -
kubectl wait --for=condition=complete job/fleetsim-merge --timeout=10m
kubectl logs job/fleetsim-merge
echo "merged $command on volume fleetsim-results under $name/merged" >&2
