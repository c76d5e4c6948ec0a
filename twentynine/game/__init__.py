"""The rules core: cards, rules, actions, the deal and the match, observations and records.

Pure code: no I/O, no clock, no global random state. Nothing here imports any
other part of the package; everything else builds on it. The modules form
their own ladder, each importing only those before it: ``cards``, ``rules``,
``actions``, ``dealing``, ``contract``, ``state``, the deal's parts
(``auction``, ``pair``, ``refusals``), ``engine``, ``match``, ``observation``,
then ``record``, ``account`` and ``scoring``.
"""
