"""The command line: ``twentynine`` and its subcommands (``main``), and the scorer's (``score``)."""
