"""RL Zoo's hyperparameters as border_py zoo entries (issue 52): `translate` reads rl_zoo3's
``hyperparams/*.yml`` and translates each entry (or refuses it, naming the keys, or skips it, saying why),
`review` turns the translations into zoo entries, compares them with the zoo's and builds each, and
`output` writes the YAML files and the report. ``python -m campaigns.rlzoo_translate`` runs them all."""
