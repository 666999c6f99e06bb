"""Apollo's benchmarks: generated inputs and ratios against references measured in the same run."""
