"""The health check and the pages for a missing page and a server error (the pages a person
uses are in games.pages)."""

import sys

from django.db import connection
from django.http import JsonResponse
from django.shortcuts import render
from django.views import defaults
from django.views.decorators.http import require_GET

from games.errors import outage_response, unavailable


def not_found(request, exception=None):
    """The site's 404 page (config.urls.handler404): the sentence a view gave ("There is no
    game with id 7."), or a general one for an address nothing answers."""
    message = exception.args[0] if exception is not None and exception.args else None
    return render(
        request, "404.html", {"message": message if isinstance(message, str) else None}, status=404
    )


def server_error(request):
    """The site's 500 page (config.urls.handler500), or its 503 when what failed is a service
    that did not answer (Django calls this while handling the error: a middleware's, such as a
    session saved while the database restarts; a view's is games.middleware.ServiceOutage's)."""
    outage = unavailable(sys.exc_info()[1])
    if outage is not None:
        return outage_response(request, outage)
    return defaults.server_error(request)


@require_GET
def healthz(request):
    """Answer 200 when the app and its database answer; load balancers poll this."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # pragma: no cover - depends on a broken database
        return JsonResponse({"status": "error", "database": str(exc)}, status=503)
    return JsonResponse({"status": "ok", "database": connection.vendor})
