"""Services built on the engine, the solver and the bots, shared by every front end."""
