from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path, re_path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from accounts import views as account_views
from cards import protocol
from games import views

urlpatterns = [
    # The pages a person uses: the lobby ("home"), tables, solitaire, replays.
    path("", include("games.page_urls")),
    path("", include("cards.page_urls")),
    path("", include("squaregame.page_urls")),
    path("", include("accounts.page_urls")),  # profiles: /u/<name>
    path("healthz", views.healthz, name="healthz"),
    # Browsers ask for /favicon.ico on documents that name no icon (the JSON API, /healthz).
    path("favicon.ico", RedirectView.as_view(url=static("img/favicon.svg"), permanent=True)),
    # The admin's log-in under the site's login limit (accounts.logins), before the admin's own.
    path("admin/login/", account_views.admin_login),
    path("admin/", admin.site.urls),
    # Accounts (django-allauth): sign up, log in, log out, change password. Ours first: the log-in
    # and sign-up pages under the site's limits, and the tokens page.
    path("accounts/", include("accounts.urls")),
    path("accounts/", include("allauth.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/", include("accounts.api_urls")),
    path("api/", include("cards.urls")),
    path("api/", include("squaregame.urls")),
    # Last under /api/: its catch-all answers any other address with a JSON 404.
    path("api/", include("games.urls")),
    # The original Set server's plain-text protocol, bare and per table (/tables/<id>/...).
    # [\s\S], not ".": a decoded path may hold a newline (%0A), which "." does not match.
    re_path(r"^(?:look|declare|pick|add|watch|tables)(?:/[\s\S]*)?$", protocol.dispatch),
    re_path(r"^scores[\s\S]*$", protocol.dispatch),
    # Every other path is the site's: a page's address without its final slash redirects to it
    # (APPEND_SLASH, games.middleware.CommonMiddleware), anything else is the site's 404 below.
]

# A missing page or game: the site's own page (Django's debug page only with DJANGO_DEBUG=1).
handler404 = views.not_found
# A server error: the site's page; a 503 when the database or Redis did not answer.
handler500 = views.server_error
