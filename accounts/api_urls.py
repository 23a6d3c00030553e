from django.urls import path

from accounts import api

urlpatterns = [
    path("auth/token", api.AuthTokenView.as_view(), name="api-auth-token"),
    path("accounts", api.AccountListView.as_view(), name="api-accounts"),
    path("users/<str:name>", api.UserView.as_view(), name="api-user"),
    path("bot/account/upgrade", api.BotUpgradeView.as_view(), name="api-bot-upgrade"),
    path("users/<str:name>/games", api.UserGamesView.as_view(), name="api-user-games"),
]
