// The HTTP/JSON API (POST /v1/<Method>) as the pages call it; the token (when the server asks for one)
// is kept for this tab only.
export class ApiError extends Error {
  constructor(http, body) {
    super(body.message || `HTTP ${http}`);
    this.http = http;
    this.code = body.code;
    this.status = body.status;
  }
}

export function token() { return sessionStorage.getItem("gamestrategy-token") || ""; }
export function setToken(t) { sessionStorage.setItem("gamestrategy-token", t.trim()); }

// `seconds`: the call's deadline (grpc-timeout); without it the server's own (live work: its pool's wait).
export async function api(method, body = {}, seconds = 0) {
  const headers = { "content-type": "application/json" };
  if (seconds) headers["grpc-timeout"] = `${seconds}S`;
  if (token()) headers.authorization = `Bearer ${token()}`;
  const r = await fetch(`/v1/${method}`, { method: "POST", headers, body: JSON.stringify(body) });
  const out = await r.json();
  if (!r.ok) throw new ApiError(r.status, out);
  return out;
}

// A token form shown when a call is refused for credentials (401/403).
export function tokenForm(where, retry) {
  const f = document.createElement("form");
  f.className = "token";
  f.innerHTML = `<label for="api-token">The server asks for a bearer token:</label>
    <input id="api-token" type="password" autocomplete="off" required> <button>Use it</button>`;
  f.addEventListener("submit", (ev) => { ev.preventDefault(); setToken(f.querySelector("input").value); f.remove(); retry(); });
  where.prepend(f);
  f.querySelector("input").focus();
}
