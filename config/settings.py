"""Settings for local use and tests; what differs per deployment comes from the environment.

Environment variables (all optional here; see config/settings_production.py for production):

- DJANGO_SECRET_KEY: the secret key (a fixed development key is used when unset).
- DJANGO_DEBUG: "1"/"true" shows Django's debug pages, for developers (default off: a missing
  page or a server error shows the site's own page, templates/404.html and 500.html).
- DJANGO_ALLOWED_HOSTS: comma-separated host names (default: localhost names).
- DATABASE_URL: e.g. postgres://user@127.0.0.1:5432/db (default: SQLite file db.sqlite3).
- REDIS_URL: e.g. redis://127.0.0.1:6379/0 carries live updates between processes (channels-redis,
  inside the process's channel layer) and keeps the rate-limit counters (default: one process,
  and a per-process cache).
- CHANNEL_PREFIX: names this deployment's keys in Redis (default "setgames"); deployments that
  share one Redis but not one database need different prefixes.
- RATE_LIMIT_JOINS, RATE_LIMIT_MOVES: per-client limits such as "30/min" or "20/s", or "off".
- RATE_LIMIT_CHAT: chat messages per player, such as "10/10s" (the default), or "off".
- LOBBY_CHAT_MIN_GAMES: finished games an account needs before it writes in the lobby's chat
  (default 3; 0 opens it to every named player, guests too). Before, it chats at its tables.
- PUBLIC_TABLES_PER_HOUR: unfinished public tables one player (account or guest session) may
  have made in the last hour (default 4; 0: no limit); beyond, 429 with Retry-After.
- LEAVE_FREE_PER_DAY, LEAVE_WAIT_MINUTES: rated games an account may leave in 24 hours (default
  2) before it waits LEAVE_WAIT_MINUTES (default 10, doubling with each leave more) to play
  rated again.
- RATE_LIMIT_LOGINS, RATE_LIMIT_ACCOUNT_LOGINS: failed logins per client address (default
  "30/5min") and per account (default "5/5min"), whichever way in (the log-in form, POST
  /api/auth/token, the admin's log-in); over either, every login is refused with 429 until the
  window ends, a correct password too (accounts/logins.py).
- RATE_LIMIT_SIGNUPS: new accounts asked for per client address, by the sign-up form or POST
  /api/accounts (default "20/hour").
- GAME_STREAM_KEEPALIVE_S: seconds without a line after which a game's NDJSON stream sends a bare
  newline (default 7); GAME_STREAMS_MAX_OPEN: game streams open at once per account, seat or
  client address in each server process (default 8; beyond, 429).
- RATE_LIMIT_CHALLENGES: challenges an account may send (default "20/min"; beyond, 429).
- RATE_LIMIT_REPORTS: reports an account may file (default "20/hour"; beyond, 429).
- EVENT_STREAM_KEEPALIVE_S, EVENT_STREAMS_MAX_OPEN: an account's event stream (GET
  /api/stream/event) sends a bare newline after this many quiet seconds (default 7); at most this
  many are open at once per account in each server process (default 4; beyond, 429).
- CHALLENGE_EXPIRES_S: seconds a challenge waits for its answer (default 60).
- ARENA_MINUTE_S: seconds of an arena tournament's minute (default 60; shortened in tests).
- ARENA_DAILY_HOUR: the UTC hour the daily arenas start (default 18).
- POOL_WAIT_LIMIT_S: Play now's wait limit (default 10): past it, a player sits with whoever of
  2 or more is closest in rating (games.pool, games.pairing).
"""

import os
import tempfile
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def env_number(name: str, default: str, kind=int, minimum=None):
    """A number from the environment (`kind`: int or float), or `default`; a value that is not
    one, or below `minimum`, stops the start with a sentence naming the variable."""
    value = os.environ.get(name) or default
    try:
        number = kind(value)
    except ValueError:
        number = None
    if number is None or (minimum is not None and number < minimum):
        what = "a whole number" if kind is int else "a number"
        least = f" of at least {minimum}" if minimum is not None else ""
        raise ImproperlyConfigured(f"{name} must be {what}{least}, not {value!r}.")
    return number


SECRET_KEY = os.environ.get(
    "DJANGO_SECRET_KEY", "django-insecure-local-development-key-not-for-production"
)
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "allauth",
    "allauth.account",
    "games",
    "accounts",
    "cards",
    "squaregame",
]

MIDDLEWARE = [
    "games.middleware.RouteName",  # the URL pattern that answered, for /metrics
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "games.middleware.CommonMiddleware",  # Django's, with a 308 for a form's missing slash
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "games.middleware.ServiceOutage",
    "games.middleware.RunMiddlewareInOneThread",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.context_processors.display",
                "games.context_processors.manners",
            ],
        },
    },
]

# SQLite by default: WAL journal, IMMEDIATE transactions (writers take the lock up front,
# so two writers never deadlock on upgrade) and a busy timeout instead of "database is locked".
SQLITE_OPTIONS = {
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
    "init_command": (
        "PRAGMA journal_mode=WAL;PRAGMA synchronous=NORMAL;PRAGMA busy_timeout=20000;"
    ),
}
if os.environ.get("DATABASE_URL"):
    DATABASES = {"default": dj_database_url.parse(os.environ["DATABASE_URL"], conn_max_age=60)}
    if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
        DATABASES["default"]["OPTIONS"] = dict(SQLITE_OPTIONS)
    elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        # Server-side parameters: psycopg then prepares a statement run often on a connection
        # (its prepare_threshold), and PostgreSQL parses and plans each move's queries once.
        DATABASES["default"].setdefault("OPTIONS", {})["server_side_binding"] = True
        # A connection kept across requests is checked before a request uses it (a SELECT 1):
        # after PostgreSQL restarts, the first request on each kept connection would fail.
        DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ.get("SQLITE_PATH", str(BASE_DIR / "db.sqlite3")),
            "OPTIONS": dict(SQLITE_OPTIONS),
            # Keep connections: opening one runs the PRAGMAs above, and the threads that use them
            # live as long as the server (config/asgi.py, games/runtime.py).
            "CONN_MAX_AGE": None,
            # A file (threads in the race tests share it), one per test process.
            "TEST": {
                "NAME": str(Path(tempfile.gettempdir()) / f"setgames-test-{os.getpid()}.sqlite3")
            },
        }
    }

CHANNEL_PREFIX = os.environ.get("CHANNEL_PREFIX", "setgames")
# The process's channel layer (games/realtime.py): its channels are local to the process, so a
# change reaches this process's sockets and watches in one pass. With Redis it also carries
# changes between processes through an inner layer, each process joining a game's group once.
CHANNEL_LAYERS = {"default": {"BACKEND": "games.realtime.GamesLayer"}}
if os.environ.get("REDIS_URL"):
    CHANNEL_LAYERS["default"]["CONFIG"] = {
        "inner": {
            # Pub/sub: a change is published once and each process hands it to its own
            # sockets, instead of one Redis message per socket (bench/bench_load.py). The
            # server is listed REDIS_LAYER_SHARDS times: channels-redis publishes through one
            # connection a host, one message at a time behind a lock, each waiting for its
            # answer on a busy event loop; one connection a shard publishes that many at once
            # (a group's messages keep their order: a group is always on one shard). With one,
            # 400 arena bots' events from the other process came p99 5-7 s late; with 16,
            # 0.5-1.1 s (bench/bench_arena.py).
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {
                "hosts": [
                    {
                        "address": os.environ["REDIS_URL"],
                        # redis-py 8 gives up on a socket after 5 s by default; channels-redis's
                        # 5 s waits for a message then closed idle WebSockets.
                        "socket_timeout": 30,
                        # redis-py 8 refuses a 101st connection; a process closing hundreds of
                        # sockets at once needs more for a moment.
                        "max_connections": 1000,
                    }
                ]
                * env_number("REDIS_LAYER_SHARDS", "16", minimum=1),
                "prefix": CHANNEL_PREFIX,
            },
        }
    }
    # Rate-limit counters are shared by every process of the deployment.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": os.environ["REDIS_URL"],
            "KEY_PREFIX": CHANNEL_PREFIX,
            # One pool per process, not one per request (config/redis_pool.py).
            "OPTIONS": {"pool_class": "config.redis_pool.SharedConnectionPool"},
        }
    }
else:
    # Rate-limit counters and each finished game's figures (games.profiles): room for every
    # game of a single-process site (Django's default keeps 300 entries, then drops a third).
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "OPTIONS": {"MAX_ENTRIES": 200_000},
        }
    }

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Accounts (django-allauth, accounts/): a username and a password; the e-mail is optional and never
# verified. Names follow issue 16 (accounts/validators.py); two names that differ only by case are
# the same account's name, and the name keeps the case it was typed in.
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
ACCOUNT_LOGIN_METHODS = {"username"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "none"
ACCOUNT_PRESERVE_USERNAME_CASING = True
ACCOUNT_USERNAME_MIN_LENGTH = 1
ACCOUNT_USERNAME_VALIDATORS = "accounts.validators.USERNAME_VALIDATORS"
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
ACCOUNT_FORMS = {"signup": "accounts.forms.AccountSignupForm"}
# One limit on logging in and one on signing up, the site's (RATE_LIMIT_LOGINS,
# RATE_LIMIT_ACCOUNT_LOGINS, RATE_LIMIT_SIGNUPS below; accounts/logins.py): allauth's own are off.
ACCOUNT_RATE_LIMITS = {"login": None, "login_failed": None, "signup": None}
ACCOUNT_LOGOUT_REDIRECT_URL = "/"
LOGIN_REDIRECT_URL = "/"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# collectstatic target; production settings set it (development serves from the finders).
STATIC_ROOT = os.environ.get("DJANGO_STATIC_ROOT") or None
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# config/asgi.py serves static files from the finders in the event loop (no CDN, no collectstatic).

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# A strict Content-Security-Policy on every response (django-csp): scripts, styles, images,
# fonts and sockets only from the site itself; no inline script, handler or style attribute.
# Player-typed text is escaped everywhere; this is the second wall behind it. (connect-src 'self'
# covers the site's own ws:// and wss://.) Swagger UI's icons are data: images.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    # JSON only: the API's pages for a person are Swagger UI (/api/docs/). DRF's browsable pages
    # carry inline styles and scripts, which the site's CSP refuses.
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "EXCEPTION_HANDLER": "games.errors.api_exception_handler",
    "UNAUTHENTICATED_USER": None,
    # An unknown ?format= is ignored, not a bare 404 (games.parsers.NamedFormats).
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "games.parsers.NamedFormats",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Set, Set War and the Square Game",
    "DESCRIPTION": (
        "JSON API of the Set games server: the Set toolkit, game tables, moves and exports. "
        "Errors are JSON objects with a `detail` message."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# The plain-text protocol's /watch waits at most this long before answering the current board.
SET_WATCH_TIMEOUT_S = env_number("SET_WATCH_TIMEOUT_S", "30", float)
# A game's NDJSON stream (GET /api/games/<id>/stream, games.follow): a bare newline after this
# many seconds without a line keeps it open; at most this many open at once per account, seat or
# client address (in each server process), a 429 beyond.
GAME_STREAM_KEEPALIVE_S = env_number("GAME_STREAM_KEEPALIVE_S", "7", float)
GAME_STREAMS_MAX_OPEN = env_number("GAME_STREAMS_MAX_OPEN", "8")
# An account's event stream (GET /api/stream/event, accounts.events): a bare newline after this
# many quiet seconds; at most this many open at once per account (in each server process).
EVENT_STREAM_KEEPALIVE_S = env_number("EVENT_STREAM_KEEPALIVE_S", "7", float)
EVENT_STREAMS_MAX_OPEN = env_number("EVENT_STREAMS_MAX_OPEN", "4")
# A challenge between accounts (accounts.challenges) waits this long for its answer; an account
# sends at most RATE_LIMIT_CHALLENGES of them.
CHALLENGE_EXPIRES_S = env_number("CHALLENGE_EXPIRES_S", "60", float)
# Arena tournaments (games.tournaments): the seconds of a tournament's minute (a test's
# tournament may be shortened), and the daily arenas' hour (UTC).
ARENA_MINUTE_S = env_number("ARENA_MINUTE_S", "60", float)
ARENA_DAILY_HOUR = env_number("ARENA_DAILY_HOUR", "18")
# Play now: past this wait, a player sits with whoever of 2 or more is closest (games.pool).
POOL_WAIT_LIMIT_S = env_number("POOL_WAIT_LIMIT_S", "10", float)
RATE_LIMIT_CHALLENGES = os.environ.get("RATE_LIMIT_CHALLENGES", "20/min")
# Reports an account may file (games.moderation; beyond, 429).
RATE_LIMIT_REPORTS = os.environ.get("RATE_LIMIT_REPORTS", "20/hour")
# Threads per process that run game reads and writes (0: 1 on SQLite, 12 on other databases:
# a move waits for its game's row lock, and pushes must not queue behind it).
GAME_DB_THREADS = env_number("GAME_DB_THREADS", "0")
# A server process told to stop (SIGTERM) waits at most this long for its connections to go
# (config/server.py).
SHUTDOWN_GRACE_S = env_number("SHUTDOWN_GRACE_S", "10", float, minimum=0)
# Per-client rate limits (games/limits.py): joining a game or table, and moves through the JSON
# API, the WebSocket and the plain-text protocol. "N/s", "N/min", "N/hour" or "off".
RATE_LIMIT_JOINS = os.environ.get("RATE_LIMIT_JOINS", "60/min")
RATE_LIMIT_MOVES = os.environ.get("RATE_LIMIT_MOVES", "20/s")
# The live lobby (/ws/lobby/, games.lobby_consumer): a table nobody has played at for this long
# is shown as idle; an open lobby socket says it is still there this often, and counts as online
# until this long after it last did; a socket is sent the lists at most once this often.
LOBBY_IDLE_AFTER_S = env_number("LOBBY_IDLE_AFTER_S", "600", float)
LOBBY_HEARTBEAT_S = env_number("LOBBY_HEARTBEAT_S", "20", float)
LOBBY_PRESENCE_TTL_S = env_number("LOBBY_PRESENCE_TTL_S", "60", float)
LOBBY_REFRESH_S = env_number("LOBBY_REFRESH_S", "0.5", float)
RATE_LIMIT_CHAT = os.environ.get("RATE_LIMIT_CHAT", "10/10s")
# The site's manners (games/manners.py, issue 28): the lobby's chat opens to an account once it
# has finished this many games (0: to every named player); a player (an account, a guest's
# session) may have at most this many unfinished public tables made in the last hour (0: no
# limit).
LOBBY_CHAT_MIN_GAMES = env_number("LOBBY_CHAT_MIN_GAMES", "3")
PUBLIC_TABLES_PER_HOUR = env_number("PUBLIC_TABLES_PER_HOUR", "4")
# Leaving rated games (games/manners.py): this many leaves in 24 hours are free; the next one
# makes the account wait LEAVE_WAIT_MINUTES (after its last leave) before it plays rated again,
# and each one more doubles the wait (0: no wait).
LEAVE_FREE_PER_DAY = env_number("LEAVE_FREE_PER_DAY", "2")
LEAVE_WAIT_MINUTES = env_number("LEAVE_WAIT_MINUTES", "10")
# The chat's word filter (games/wordfilter.py): a line that says one of these words, whole, in
# any case, accents, repeated letters, digits for letters or letters apart, is shown to its writer
# only. A word ending in "*" matches the words it begins. A short list of common insults and
# slurs in English, French, German, Spanish, Italian, Portuguese and Dutch; the environment's
# CHAT_BLOCKED_WORDS (comma-separated) replaces it ("" turns the filter off).
CHAT_BLOCKED_WORDS = [
    # English
    "fuck*", "motherfucker", "shit", "bullshit", "cunt", "bitch", "asshole", "dickhead",
    "nigger", "nigga", "faggot", "fag", "retard", "whore", "slut", "twat", "wanker",
    # French
    "connard", "connasse", "salope", "encule", "pute", "nique",
    # German
    "arschloch", "fotze", "hurensohn", "schlampe", "wichser",
    # Spanish
    "puta", "cabron", "gilipollas", "pendejo", "maricon", "mierda",
    # Italian
    "stronzo", "vaffanculo", "frocio",
    # Portuguese
    "caralho", "viado",
    # Dutch
    "klootzak", "kankerlijer",
]  # fmt: skip
if "CHAT_BLOCKED_WORDS" in os.environ:
    CHAT_BLOCKED_WORDS = [
        w.strip() for w in os.environ["CHAT_BLOCKED_WORDS"].split(",") if w.strip()
    ]
# Failed logins per client address and per account (every way in: accounts/logins.py), and new
# accounts per client address (the form and the API).
RATE_LIMIT_LOGINS = os.environ.get("RATE_LIMIT_LOGINS", "30/5min")
RATE_LIMIT_ACCOUNT_LOGINS = os.environ.get("RATE_LIMIT_ACCOUNT_LOGINS", "5/5min")
RATE_LIMIT_SIGNUPS = os.environ.get("RATE_LIMIT_SIGNUPS", "20/hour")

# /metrics (games.metrics): served only to these client addresses or networks (comma-separated;
# behind a proxy, the address daphne's --proxy-headers takes from X-Forwarded-For). To any other
# the path does not exist (the site's 404).
METRICS_ALLOWED = env_list("METRICS_ALLOWED", ["127.0.0.1", "::1"])

# LOG_FORMAT=json: every log line is one JSON object (python-json-logger), and each HTTP request
# (logger games.requests) and each committed change (games.moves) writes one at INFO. Otherwise
# plain lines, warnings and errors only (DJANGO_LOG_LEVEL=INFO shows the two in plain words).
LOG_FORMAT = os.environ.get("LOG_FORMAT", "plain").strip().lower()
LOG_JSON = LOG_FORMAT == "json"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "json": {
            "()": "pythonjsonlogger.orjson.OrjsonFormatter",
            "fmt": "%(levelname)s %(name)s %(message)s",
            "rename_fields": {"levelname": "level", "name": "logger"},
            "timestamp": "time",
        },
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", **({"formatter": "json"} if LOG_JSON else {})}
    },
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "WARNING")},
    "loggers": (
        {"games.requests": {"level": "INFO"}, "games.moves": {"level": "INFO"}} if LOG_JSON else {}
    ),
}
