"""Analyses built on the engine's rules and data: where pawns land (`landing`)."""
