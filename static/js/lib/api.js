/* Talking to the JSON API: one fetch helper with one answer shape.
 *
 *   const reply = await request("POST", "/api/games/7/moves", {type: "hint"});
 *   reply.ok      // true for a 2xx answer
 *   reply.status  // the HTTP status, 0 when the server could not be reached
 *   reply.data    // the answer's JSON ({} when it had none)
 *   reply.detail  // on failure, the sentence to show: the server's "detail" or a fallback
 *   reply.fields  // on failure, the server's per-field errors ({} when none)
 *
 * It never throws: a page shows `reply.detail` and carries on. Writes carry the session's CSRF
 * token (from its cookie, or the token the page was rendered with).
 */

let pageToken = "";

/** Remember the CSRF token a page was rendered with, for browsers that hide the cookie. */
export function useCsrfToken(token) {
  pageToken = token || "";
}

/** Return the session's CSRF token. */
export function csrfToken() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : pageToken;
}

/** Return the sentence to show for a failed answer (status and body as the server sent them). */
export function detailOf(status, data) {
  if (data && typeof data.detail === "string" && data.detail) return data.detail;
  if (status === 0) return "The server cannot be reached; check the connection and try again.";
  return `The server answered ${status}.`;
}

/** Send one request and return its answer in the one shape above. `keepalive`: the request
 * outlives the page (one sent as the page goes away). */
export async function request(method, url, body, {keepalive = false} = {}) {
  const init = {method, credentials: "same-origin", headers: {Accept: "application/json"}};
  if (keepalive) init.keepalive = true;
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  if (method !== "GET") init.headers["X-CSRFToken"] = csrfToken();
  let response;
  try {
    response = await fetch(url, init);
  } catch {
    return {ok: false, status: 0, data: {}, detail: detailOf(0, null), fields: {}};
  }
  let data = {};
  try {
    data = await response.json();
  } catch {
    data = {};
  }
  if (data === null || typeof data !== "object") data = {value: data};
  return {
    ok: response.ok,
    status: response.status,
    data,
    detail: response.ok ? "" : detailOf(response.status, data),
    fields: response.ok ? {} : data.errors || {},
  };
}
