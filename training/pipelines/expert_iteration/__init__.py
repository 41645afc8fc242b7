"""Expert iteration: a policy-value network improved by the search it guides (or distilled from a teacher search)."""
