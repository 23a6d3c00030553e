from django.urls import path

from accounts import api, challenge_api, moderation_api, tournament_api

urlpatterns = [
    path("auth/token", api.AuthTokenView.as_view(), name="api-auth-token"),
    path("accounts", api.AccountListView.as_view(), name="api-accounts"),
    path("users/<str:name>", api.UserView.as_view(), name="api-user"),
    path("bot/account/upgrade", api.BotUpgradeView.as_view(), name="api-bot-upgrade"),
    path("users/<str:name>/games", api.UserGamesView.as_view(), name="api-user-games"),
    path("players/<str:name>/insights", api.InsightsView.as_view(), name="api-player-insights"),
    path("challenge", challenge_api.ChallengeListView.as_view(), name="api-challenges"),
    path("tournaments", tournament_api.TournamentListView.as_view(), name="api-tournaments"),
    path(
        "tournaments/<int:tournament_id>",
        tournament_api.TournamentDetailView.as_view(),
        name="api-tournament",
    ),
    path(
        "tournaments/<int:tournament_id>/join",
        tournament_api.TournamentJoinView.as_view(),
        name="api-tournament-join",
    ),
    path(
        "tournaments/<int:tournament_id>/pause",
        tournament_api.TournamentPauseView.as_view(),
        name="api-tournament-pause",
    ),
    path(
        "tournaments/<int:tournament_id>/withdraw",
        tournament_api.TournamentWithdrawView.as_view(),
        name="api-tournament-withdraw",
    ),
    path(
        "tournaments/<int:tournament_id>/results",
        tournament_api.TournamentResultsView.as_view(),
        name="api-tournament-results",
    ),
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
    path("reports", moderation_api.ReportView.as_view(), name="api-reports"),
    path("blocks/<str:name>", moderation_api.BlockView.as_view(), name="api-block"),
    path("moderation/reports", moderation_api.ModReportsView.as_view(), name="api-mod-reports"),
    path(
        "moderation/reports/<int:report_id>/close",
        moderation_api.ModReportCloseView.as_view(),
        name="api-mod-report-close",
    ),
    path(
        "moderation/chat/<int:line>/delete",
        moderation_api.ModLineDeleteView.as_view(),
        name="api-mod-line-delete",
    ),
    path("moderation/users/<str:name>/mute", moderation_api.ModMuteView.as_view(), name="api-mute"),
    path("moderation/users/<str:name>/ban", moderation_api.ModBanView.as_view(), name="api-ban"),
    path(
        "moderation/users/<str:name>/unmute",
        moderation_api.ModUnmuteView.as_view(),
        name="api-unmute",
    ),
    path(
        "moderation/users/<str:name>/unban", moderation_api.ModUnbanView.as_view(), name="api-unban"
    ),
    path(
        "moderation/users/<str:name>/rename",
        moderation_api.ModRenameView.as_view(),
        name="api-rename",
    ),
    path("moderation/log", moderation_api.ModLogView.as_view(), name="api-mod-log"),
    path("bot/online", challenge_api.BotsOnlineView.as_view(), name="api-bots-online"),
]
