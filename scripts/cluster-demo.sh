#!/usr/bin/env bash
# Three Idem nodes and a Kafka broker on this machine, as docs/cluster.md describes: starts them,
# writes and reads through redis-cli -c, kills a node with SIGKILL and shows the others take its
# slots, restarts it, and stops everything (with --keep, leaves the cluster up until Ctrl-C).
#   scripts/cluster-demo.sh [--keep]
# Ports: Kafka on $KAFKA_PORT (19092) and 19093, the nodes on $BASE_PORT (7001) and the next two.
# Data under cluster-demo/ (removed at the start of each run).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/jdk.sh
idem_find_jdk25
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
. scripts/kafka.sh
command -v redis-cli >/dev/null || { echo "redis-cli is missing: apt-get install redis-tools" >&2; exit 1; }

keep=no
[ "${1:-}" = "--keep" ] && keep=yes
kafka=${KAFKA_PORT:-19092}
base=${BASE_PORT:-7001}
data=cluster-demo
rm -rf "$data"
mkdir -p "$data"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  kafka_stop
  wait 2>/dev/null || true
}
trap cleanup EXIT

kafka_start "$data/kafka" "$kafka"
./idem --version >/dev/null # builds the distribution once, before the nodes start

names=(a b c)
nodes="a=127.0.0.1:$base b=127.0.0.1:$((base + 1)) c=127.0.0.1:$((base + 2))"
start_node() { # start_node INDEX: node names[INDEX] on port base+INDEX, its pid in pids[INDEX]
  local i=$1
  ./idem serve --port $((base + i)) --dir "$data/${names[$i]}" \
    --set cluster-enabled=yes --set cluster-node="${names[$i]}" --set cluster-nodes="$nodes" \
    --set cluster-partitions=6 --set cluster-replicas=2 \
    --set cluster-log="127.0.0.1:$kafka" --set cluster-node-timeout=3000 \
    2>"$data/${names[$i]}.log" &
  pids[$i]=$!
}
live() { # the live nodes as node INDEX sees them
  redis-cli -p $((base + $1)) INFO cluster 2>/dev/null | tr -d '\r' | sed -n 's/^cluster_live_nodes://p'
}
await_live() { # await_live INDEX NAMES: until node INDEX sees exactly NAMES live (60 s at most)
  local i
  for i in $(seq 1 600); do
    [ "$(live "$1")" = "$2" ] && return 0
    sleep 0.1
  done
  echo "node ${names[$1]} sees '$(live "$1")' live, not '$2'" >&2
  return 1
}
show() { echo "\$ $*"; "$@"; }
expect() { # expect REPLY COMMAND...: shows the command and its reply; fails if the reply differs
  local want=$1 got
  shift
  echo "\$ $*"
  got=$("$@")
  echo "$got"
  [ "$got" = "$want" ] || { echo "cluster-demo: expected '$want'" >&2; exit 1; }
}

for i in 0 1 2; do start_node "$i"; done
await_live 0 a,b,c
await_live 1 a,b,c
await_live 2 a,b,c
echo "three nodes up: $nodes; six partitions, two nodes serve each"
echo
expect 1 redis-cli -c -p "$base" BF.ADD seen:alice item-1
expect 0 redis-cli -c -p "$base" BF.ADD seen:alice item-1
expect 2 redis-cli -c -p "$base" COUNTER.INCRBY clicks:alice '*' home 1
show redis-cli -c -p "$((base + 2))" WAITLOG seen:alice 5000
expect 1 redis-cli -c -p "$((base + 2))" BF.EXISTS seen:alice item-1
show redis-cli -p "$base" CLUSTER KEYSLOT seen:alice
show redis-cli -p "$base" CLUSTER NODES
b_range=$(redis-cli -p "$base" CLUSTER NODES | awk -v b="127.0.0.1:$((base + 1))@" 'index($2, b) == 1 {print $9}')
echo
echo "kill -9 node b (port $((base + 1)), the primary of slots $b_range)"
kill -9 "${pids[1]}"
await_live 0 a,c
show redis-cli -p "$base" CLUSTER NODES
b_key=
for n in $(seq 1 200); do # a key in b's slots
  slot=$(redis-cli -p "$base" CLUSTER KEYSLOT "user:$n")
  if [ "$slot" -ge "${b_range%-*}" ] && [ "$slot" -le "${b_range#*-}" ]; then b_key="user:$n"; break; fi
done
expect 1 redis-cli -c -p "$base" BF.ADD "$b_key" written-while-b-is-down
echo
echo "restart node b: it catches up from Kafka, then rejoins"
start_node 1
await_live 0 a,b,c
show redis-cli -c -p "$((base + 1))" WAITLOG "$b_key" 5000
expect 1 redis-cli -p "$((base + 1))" BF.EXISTS "$b_key" written-while-b-is-down
if [ "$keep" = yes ]; then
  echo
  echo "the cluster stays up: redis-cli -c -p $base; Ctrl-C stops it"
  wait
fi
