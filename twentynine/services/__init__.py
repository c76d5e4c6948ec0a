"""Services built on the engine, the solver and the bots, shared by every front end:
the duplicate arena, the bot protocols and the analysis of a deal."""
