"""The published baselines' configs (benchmarks/baselines.py): each env's default recipe at the
baseline's budget, a config its pipeline accepts, with the curve and evaluation it promises."""

from __future__ import annotations

import pytest
import yaml

from benchmarks import baselines
from training.framework.command import declared_pipeline
from training.framework.config import load_config
from training.pipelines import PIPELINES, pipeline_class


@pytest.mark.parametrize("env", sorted(baselines.BUDGETS))
def test_each_baseline_is_its_envs_default_recipe_at_the_budget(env, tmp_path):
    config = baselines.baseline_config(env)
    path = tmp_path / f"{env}.yaml"
    path.write_text(yaml.safe_dump(config))
    default = yaml.safe_load((baselines.ROOT / "configs" / f"{env}.yaml").read_text())
    pipeline = pipeline_class(declared_pipeline(path) or "ppo")
    assert pipeline.name in PIPELINES and declared_pipeline(path) == default.get("pipeline")
    loaded = load_config(pipeline.schema, path)  # the pipeline's schema accepts it
    key, budget = baselines.BUDGETS[env]
    holder, name = baselines.nested(loaded.to_dict(), key)
    assert holder[name] == budget
    assert loaded.evaluation.games in baselines.EVALUATION_GAMES.values() and loaded.evaluation.tables == []
    assert loaded.evaluation.opponents == default["evaluation"]["opponents"]
    unchanged = {k for k in default if k not in (key.split(".")[0], "warm_start", "learning_curve", "evaluation")}
    assert {k: config[k] for k in unchanged} == {k: default[k] for k in unchanged}
