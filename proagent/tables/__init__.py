"""The published tables `proagent reproduce` regenerates beyond one evaluation grid: each a module
that plays its grids through the evaluation library and writes its page beside the paper's numbers.

This package sits above the evaluation core (it reads the run records the core writes) and may name
worlds, which the core may not; the command line reaches the tables only through `registry`.
"""
