"""Services built on the engine and the bots: the duplicate arena and the bot protocols."""
