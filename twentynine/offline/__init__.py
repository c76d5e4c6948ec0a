"""Offline play: the server's own Python, run in the browser by Pyodide.

The page's web worker loads Pyodide and this package (the ``bundle`` the web
app serves), then runs the very ``Lobby`` and ``GameSession`` of the server
inside the worker (``host``): the page talks to it with the websocket
protocol, over ``postMessage`` instead of a socket. Bots decide on the
worker's event loop (``BotPool(INLINE)``), and games are kept in the
browser's storage (``store``) so an unfinished game resumes after a reload.

Nothing here imports the web server, numba or any native extension.
"""

from __future__ import annotations
