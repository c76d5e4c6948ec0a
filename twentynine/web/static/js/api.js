// Asking the server over HTTP (the game itself goes over the websocket, net.js).

// POST `body` as JSON to `url`; the answer's JSON when `valid(answer)` holds,
// else {error} (the server's words, or the status), or {offline: true} when
// the server cannot be reached at all.
export async function postJson(url, body, valid) {
  let res;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      cache: "no-store",
    });
  } catch {
    return { offline: true };
  }
  let answer = null;
  try {
    answer = await res.json();
  } catch {
    answer = null;
  }
  if (!res.ok || !answer || !valid(answer)) return { error: answer?.error || String(res.status) };
  return answer;
}
