"""Package data: the board, the cards and the rule presets."""
