"""Games played in memory with the very same rules code: the simulator and its table."""
