"""Production settings: DEBUG off, a required secret key, HTTPS everywhere.

Use with DJANGO_SETTINGS_MODULE=config.settings_production. Required: DJANGO_SECRET_KEY and
DJANGO_ALLOWED_HOSTS; DJANGO_CSRF_TRUSTED_ORIGINS (config/settings.py) names other origins the
site's forms and sockets may come from. `python manage.py check --deploy` reports nothing with
these settings. deploy/ runs them behind nginx (README "Production").
"""

import os

from django.core.exceptions import ImproperlyConfigured

from config.settings import *  # noqa: F403

DEBUG = False

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if len(SECRET_KEY) < 50 or SECRET_KEY.startswith("django-insecure"):
    raise ImproperlyConfigured(
        "Set DJANGO_SECRET_KEY to a long random value (50+ characters) in production."
    )
if not os.environ.get("DJANGO_ALLOWED_HOSTS"):
    raise ImproperlyConfigured("Set DJANGO_ALLOWED_HOSTS (comma-separated) in production.")

# Behind the proxy of deploy/ (nginx): it sets X-Forwarded-Proto to the scheme the visitor used,
# overwriting whatever the visitor sent, and daphne (--proxy-headers) takes the visitor's address
# from X-Forwarded-For. The Host header is the visitor's own (nginx passes it on): no
# X-Forwarded-Host is trusted.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
USE_X_FORWARDED_HOST = False
USE_X_FORWARDED_PORT = False
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)  # noqa: F405
# The proxy and the service manager ask each process for /healthz directly, over plain HTTP.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_HSTS_SECONDS = env_number("DJANGO_HSTS_SECONDS", str(60 * 60 * 24 * 365), minimum=0)  # noqa: F405
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

# `manage.py collectstatic` gathers the assets here for a front proxy to serve; the app itself
# also serves them from the project (config/asgi.py), so nothing is fetched from elsewhere.
STATIC_ROOT = os.environ.get("DJANGO_STATIC_ROOT", str(BASE_DIR / "staticfiles"))  # noqa: F405

REST_FRAMEWORK = {
    **REST_FRAMEWORK,  # noqa: F405
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
}
