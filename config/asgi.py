"""ASGI entry point.

- The Set server's plain-text protocol (/look/P, /watch/P, ...) is answered by a lean handler
  in front of Django (games.protocol.ProtocolApp): no sessions, CSRF or templates to run.
- Static files are served by Django's ASGI static handler, in the event loop, from the project.
- Everything else over HTTP goes to Django; WebSockets go to the Channels consumers, which check
  the Origin against ALLOWED_HOSTS and read the browser's session.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402

from games.protocol import ProtocolApp  # noqa: E402
from games.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": ProtocolApp(ASGIStaticFilesHandler(django_asgi_app)),
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)
