"""The Training panel: corpus list, the options form (built from TrainConfig), the live
merge-count plot."""
