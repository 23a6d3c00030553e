from django.urls import path, re_path

from games import api, pool_api

urlpatterns = [
    path("games/", api.GameListView.as_view(), name="game-list"),
    path("games/<int:game_id>/", api.GameDetailView.as_view(), name="game-detail"),
    path("games/<int:game_id>/join", api.JoinView.as_view(), name="game-join"),
    path("games/<int:game_id>/moves", api.MovesView.as_view(), name="game-moves"),
    path("games/<int:game_id>/start", api.StartView.as_view(), name="game-start"),
    path("games/<int:game_id>/rematch", api.RematchView.as_view(), name="game-rematch"),
    path("games/<int:game_id>/computers", api.ComputerView.as_view(), name="game-computers"),
    path("games/<int:game_id>/stream", api.GameStreamView.as_view(), name="game-stream"),
    path("games/<int:game_id>/chat", api.ChatView.as_view(), name="game-chat"),
    path("lobby/chat", api.LobbyChatView.as_view(), name="lobby-chat"),
    path("options", api.OptionRulesView.as_view(), name="options"),
    path("games/<int:game_id>/export", api.ExportView.as_view(), name="game-export"),
    path("games/<int:game_id>/replay", api.ReplayView.as_view(), name="game-replay"),
    path("games/<int:game_id>/story", api.StoryView.as_view(), name="game-story"),
    path("pool", pool_api.PoolView.as_view(), name="pool"),
    path("leaderboard/<str:mode>", api.LeaderboardView.as_view(), name="leaderboard-api"),
    # Last: any other address under /api/ (a game id that is not a number...) is a JSON 404.
    re_path(r"^(?P<path>(?s:.*))$", api.not_found, name="api-not-found"),
]
