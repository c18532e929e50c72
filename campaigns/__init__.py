"""The maintainers' campaigns: the scripts that regenerate the documentation's result tables and figures
(``make results``, ``make results-mujoco``). They sit outside the package, as the benchmarks do: a user's
runs need none of them. `campaigns.jobs` is their one job list."""
