/* The live connection to a game, and JSON calls to the API with the session's CSRF token.
 *
 *   var socket = new Live.GameSocket("/ws/games/7/", {
 *     state: function (message) {...},   // {"type": "state", "version": n, "view": {...}}
 *     result: function (message) {...},  // {"type": "result", "outcome": {...}, "version": n}
 *     error: function (message) {...},   // {"type": "error", "detail": "...", "code": "..."}
 *     status: function (state) {...}     // "connecting" | "live" | "reconnecting" | "closed"
 *   });
 *   socket.send({"type": "hint"})        // false when not connected (use the HTTP API then)
 *
 * The socket reconnects with a growing, jittered delay and asks for a {"type": "sync"} after a
 * reconnection; states older than the last one are dropped; when a result names a version that
 * no state has shown yet (a gap), it asks for a sync unless the state arrives first.
 */
(function (global) {
  "use strict";

  function csrfToken(fallback) {
    var match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : (fallback || "");
  }

  function api(method, url, body, csrf) {
    var init = {
      method: method,
      credentials: "same-origin",
      headers: {"Accept": "application/json"}
    };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    if (method !== "GET") init.headers["X-CSRFToken"] = csrfToken(csrf);
    return fetch(url, init).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        return {ok: response.ok, status: response.status, data: data};
      });
    }, function () {
      return {ok: false, status: 0, data: {detail: "The server cannot be reached; retrying…"}};
    });
  }

  var MIN_DELAY = 500;
  var MAX_DELAY = 10000;
  var GAP_WAIT = 1200;

  function GameSocket(path, handlers) {
    this.path = path;
    this.handlers = handlers || {};
    this.version = -1;
    this.attempts = 0;
    this.everOpen = false;
    this.stopped = false;
    this.gapTimer = null;
    this.retryTimer = null;
    this.open();
    var self = this;
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "visible") self.sync();
    });
    global.addEventListener("online", function () { self.reconnectNow(); });
  }

  GameSocket.prototype.url = function () {
    var scheme = global.location.protocol === "https:" ? "wss://" : "ws://";
    return scheme + global.location.host + this.path;
  };

  GameSocket.prototype.emit = function (name, value) {
    if (this.handlers[name]) this.handlers[name](value);
  };

  GameSocket.prototype.open = function () {
    var self = this;
    if (this.stopped) return;
    this.emit("status", this.everOpen ? "reconnecting" : "connecting");
    var ws;
    try {
      ws = new WebSocket(this.url());
    } catch (e) {
      this.retry();
      return;
    }
    this.ws = ws;
    ws.onopen = function () {
      var again = self.everOpen;
      self.everOpen = true;
      self.attempts = 0;
      self.emit("status", "live");
      // The server sends the state on connect; a reconnection asks again in case of a race.
      if (again) self.send({type: "sync"});
    };
    ws.onmessage = function (event) {
      var message;
      try { message = JSON.parse(event.data); } catch (e) { return; }
      self.receive(message);
    };
    ws.onclose = function (event) {
      if (self.ws !== ws) return;
      self.ws = null;
      if (event.code === 4404 || event.code === 4403) {
        self.stopped = true;
        self.emit("status", "closed");
        return;
      }
      self.retry();
    };
    ws.onerror = function () { /* onclose follows and retries */ };
  };

  GameSocket.prototype.retry = function () {
    var self = this;
    if (this.stopped) return;
    this.emit("status", "reconnecting");
    var delay = Math.min(MAX_DELAY, MIN_DELAY * Math.pow(2, this.attempts));
    delay = delay / 2 + Math.random() * delay / 2;
    this.attempts += 1;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(function () { self.open(); }, delay);
  };

  GameSocket.prototype.reconnectNow = function () {
    clearTimeout(this.retryTimer);
    var ws = this.ws;
    this.ws = null;
    this.attempts = 0;
    if (ws) {
      ws.onclose = null;
      try { ws.close(); } catch (e) { /* already closed */ }
    }
    this.stopped = false;
    this.open();
  };

  GameSocket.prototype.receive = function (message) {
    if (message.type === "state") {
      if (typeof message.version === "number" && message.version < this.version) return;
      this.version = message.version;
      clearTimeout(this.gapTimer);
      this.emit("state", message);
    } else if (message.type === "result") {
      this.emit("result", message);
      this.expect(message.version);
    } else if (message.type === "error") {
      this.emit("error", message);
    }
  };

  /* A version we have not seen a state for: the state normally follows at once; if not, sync. */
  GameSocket.prototype.expect = function (version) {
    var self = this;
    if (typeof version !== "number" || version <= this.version) return;
    clearTimeout(this.gapTimer);
    this.gapTimer = setTimeout(function () {
      if (self.version < version) self.sync();
    }, GAP_WAIT);
  };

  GameSocket.prototype.sync = function () {
    return this.send({type: "sync"});
  };

  GameSocket.prototype.isOpen = function () {
    return !!(this.ws && this.ws.readyState === WebSocket.OPEN);
  };

  GameSocket.prototype.send = function (data) {
    if (!this.isOpen()) return false;
    this.ws.send(JSON.stringify(data));
    return true;
  };

  global.Live = {api: api, csrfToken: csrfToken, GameSocket: GameSocket};
})(window);
