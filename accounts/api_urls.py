from django.urls import path

from accounts import api, challenge_api

urlpatterns = [
    path("auth/token", api.AuthTokenView.as_view(), name="api-auth-token"),
    path("accounts", api.AccountListView.as_view(), name="api-accounts"),
    path("users/<str:name>", api.UserView.as_view(), name="api-user"),
    path("bot/account/upgrade", api.BotUpgradeView.as_view(), name="api-bot-upgrade"),
    path("users/<str:name>/games", api.UserGamesView.as_view(), name="api-user-games"),
    path("challenge", challenge_api.ChallengeListView.as_view(), name="api-challenges"),
    path(
        "challenge/<int:challenge_id>/accept",
        challenge_api.ChallengeAcceptView.as_view(),
        name="api-challenge-accept",
    ),
    path(
        "challenge/<int:challenge_id>/decline",
        challenge_api.ChallengeDeclineView.as_view(),
        name="api-challenge-decline",
    ),
    path(
        "challenge/<int:challenge_id>/cancel",
        challenge_api.ChallengeCancelView.as_view(),
        name="api-challenge-cancel",
    ),
    path("challenge/<str:name>", challenge_api.ChallengeCreateView.as_view(), name="api-challenge"),
    path("stream/event", challenge_api.EventStreamView.as_view(), name="api-event-stream"),
    path("bot/online", challenge_api.BotsOnlineView.as_view(), name="api-bots-online"),
]
