"""Side-by-side benchmarks of border_py against the raw environment, plain PyTorch, Stable-Baselines3 and
Tianshou: ``make bench`` (``python -m benchmarks.run``). Scripts, not tests: they print ratios measured in one
run, because timings on shared machines are too noisy to assert."""
