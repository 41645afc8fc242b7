"""The run framework: what every training pipeline shares except its learner.

The loop, configs, run folders, checkpoints, stops, the metrics sink, curves and the closing evaluation.
"""
