"""The framework core: cards, the game interface, state, commands, views, fairness and chain."""
