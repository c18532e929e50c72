#!/usr/bin/env bash
# A two-node Ray cluster on this machine, on local addresses only, and the asynchronous DQN example on it:
#
#     make two-nodes                 # or: examples/two_nodes.sh [MAX_OPTS]
#
# The head and the worker node get one CPU each and each actor asks for one, so the two actors run on two
# different nodes (the learner runs in this shell's Python, outside both). `ray stop` at the end stops every
# Ray process of this user on the machine: do not run it beside another Ray session.
set -euo pipefail

PY=${PY:-.venv/bin/python}
RAY=${RAY:-.venv/bin/ray}
MAX_OPTS=${1:-12000}
MODEL_DIR=${MODEL_DIR:-runs/dqn_cartpole_two_nodes}
PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
ADDRESS=127.0.0.1:$PORT

# Ray 2.60 turns token authentication on (the token file lives under ~/.ray); the second node and the
# driver must be told the mode too, or they are refused.
export RAY_AUTH_MODE=token
# The driver binds to the same local address as the nodes (Ray would otherwise pick the host's address).
export RAY_NODE_IP_ADDRESS=127.0.0.1

stop() { "$RAY" stop --force >/dev/null 2>&1 || true; }
trap stop EXIT

"$RAY" start --head --node-ip-address=127.0.0.1 --port="$PORT" --num-cpus=1 \
    --include-dashboard=false --disable-usage-stats
"$RAY" start --address="$ADDRESS" --node-ip-address=127.0.0.1 --num-cpus=1 --disable-usage-stats

"$PY" - "$ADDRESS" <<'EOF'
import sys

import ray

ray.init(address=sys.argv[1], logging_level="ERROR")
nodes = [n for n in ray.nodes() if n["Alive"]]
print(f"cluster at {sys.argv[1]}: {len(nodes)} nodes, {ray.cluster_resources()['CPU']:g} CPUs")
if len(nodes) != 2:
    sys.exit(f"expected 2 nodes, found {len(nodes)}")
EOF

"$PY" -m border_py train dqn --env CartPole-v1 --variant async --overwrite --no-progress \
    --model-dir "$MODEL_DIR" --address "$ADDRESS" --actors 2 --set "trainer.max_opts=$MAX_OPTS"
"$PY" -m border_py eval --model-dir "$MODEL_DIR"
