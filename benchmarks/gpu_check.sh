#!/usr/bin/env bash
# `make test-cuda` and the Pong rates on a lent GPU machine, from the wheels `benchmarks/gpu_wheels.sh`
# fetched (run there from the repository root with .whl carried; outputs under $OUT when set). MuJoCo renders
# nothing here, so MUJOCO_GL stays unset (set to egl without the GL loaders, every MuJoCo env fails to load);
# pytest-benchmark, in that image, refuses to run beside xdist, so it is switched off.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    || exit 1
export PYTHONPATH="/tmp/site:$PWD" PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/gpu-check}
mkdir -p "$OUT"
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  python3 -c "import torch, numpy, sys; print(torch.__version__, numpy.__version__, sys.version)"; } > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"
python3 -m pytest -q -p no:cacheprovider -m cuda tests/cuda > "$OUT/cuda.log" 2>&1
echo "pytest -m cuda: rc=$?"; tail -1 "$OUT/cuda.log"
BORDER_PY_DEVICE=cuda python3 -m pytest -q -p no:cacheprovider -p no:benchmark -n 8 -m smoke \
    tests/run/test_zoo_entries.py > "$OUT/zoo.log" 2>&1
echo "zoo entries on cuda: rc=$?"; grep -E "^FAILED|passed|failed" "$OUT/zoo.log" | tail -12
python3 -m benchmarks.cuda_throughput --device cuda --runs ppo:ALE/Pong-v5:30720 dqn:ALE/Pong-v5:30000 \
    > "$OUT/rate.log" 2>&1
tail -2 "$OUT/rate.log"
