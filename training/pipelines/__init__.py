"""Training pipelines: each is a learner on top of the run framework (training.framework)."""
