"""The health check and the page for a missing page (the pages a person uses are in
games.pages)."""

from django.db import connection
from django.http import JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET


def not_found(request, exception=None):
    """The site's 404 page (config.urls.handler404): the sentence a view gave ("There is no
    game with id 7."), or a general one for an address nothing answers."""
    message = exception.args[0] if exception is not None and exception.args else None
    return render(
        request, "404.html", {"message": message if isinstance(message, str) else None}, status=404
    )


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
