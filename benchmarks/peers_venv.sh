#!/usr/bin/env bash
# The peers that pin versions of their own, in a virtualenv of their own (.venv-peers, never the package's):
# sb3-contrib (QR-DQN, TQC, CrossQ) with the Stable-Baselines3 it pins, and with --sbx the JAX port SBX.
# torch==2.13.0 first (the CPU file on disk), then everything constrained to it, as `make install` does.
#
#     benchmarks/peers_venv.sh          # sb3-contrib 2.9.2 + stable-baselines3 2.9.2
#     benchmarks/peers_venv.sh --sbx    # and sbx-rl 0.28.0 with its JAX (about 600 MB more)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv-peers
test -x "$VENV/bin/python" || python3.11 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --upgrade pip
"$VENV/bin/pip" install --quiet torch==2.13.0
"$VENV/bin/pip" install --quiet -c constraints.txt 'sb3-contrib==2.9.2' 'stable-baselines3==2.9.2' \
    'gymnasium[classic-control,mujoco,box2d]' gymnasium-robotics attrs cattrs PyYAML tqdm tensorboardX
if [ "${1:-}" = "--sbx" ]; then
    "$VENV/bin/pip" install --quiet -c constraints.txt 'sbx-rl==0.28.0'
fi
# border_py itself from this checkout (its core needs only), for the side-by-side scripts' own half.
"$VENV/bin/pip" install --quiet -c constraints.txt --no-deps -e .
"$VENV/bin/python" -c "import sb3_contrib, stable_baselines3, gymnasium; print('peers:', sb3_contrib.__version__, stable_baselines3.__version__, gymnasium.__version__)"
