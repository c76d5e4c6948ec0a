"""Bot protocols: speaking other engines' wire formats, in both directions.

``bhoos`` is the HTTP protocol of the Smart Bots contest (``BHOOS.md``):
serve our bots to such an engine, or seat such a bot at our tables.
"""
