#!/usr/bin/env bash
# The wheels a bare GPU machine (Python 3.12, torch and numpy already there, no package index) needs to run
# `benchmarks/gpu_check.sh`: the project's own dependencies that image lacks, at the versions .venv holds,
# into .whl/ (ignored by git). gymnasium-robotics is repacked without its Adroit and Kitchen assets (42 MB
# the zoo never loads) so the working tree and the wheels stay under a 64 MiB transfer.
#   benchmarks/gpu_wheels.sh && du -sh .whl
set -euo pipefail
cd "$(dirname "$0")/.."
PIP=(.venv/bin/python -m pip download -q --no-deps --only-binary=:all: --python-version 3.12
     --implementation cp -d .whl)
for n in 28 27 17 24 31 34 35; do PIP+=(--platform "manylinux_2_${n}_x86_64"); done
PIP+=(--platform manylinux2014_x86_64 --platform manylinux1_x86_64)
version() { .venv/bin/python -c "import importlib.metadata as m; print(m.version('$1'))"; }
mkdir -p .whl
for name in gymnasium farama-notifications cattrs tensorboardX ale-py mujoco mujoco-core glfw PyOpenGL \
            gymnasium-robotics pettingzoo Box2D pygame-ce minari; do
    "${PIP[@]}" "$name==$(version "$name")"
done
robotics=$(ls .whl/gymnasium_robotics-*.whl)
work=$(mktemp -d)
(cd "$work" && unzip -q "$OLDPWD/$robotics" && rm -rf gymnasium_robotics/envs/assets/{adroit_hand,kitchen_franka})
rm "$robotics" && (cd "$work" && zip -qr "$OLDPWD/$robotics" .) && rm -rf "$work"
