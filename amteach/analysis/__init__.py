"""The economics behind the game, computed from the engine and the simulator; each analysis
gives a tidy frame, a plotly chart and a sentence that reads the chart (docs/analysis.md):

- `landing`: where pawns land, from a Markov chain per role;
- `returns`: what each title costs, earns and takes to pay back, by owner role;
- `taxes`: the income-tax break-even per role, and what players chose;
- `inequality`: Gini coefficients, Lorenz curves and the gap between the roles;
- `fairness`: win rates by role, seat and bot; rule sweeps; presets; market structures.
"""
