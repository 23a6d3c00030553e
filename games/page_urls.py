"""The pages every kind shares (games.pages), mounted at the site root."""

from django.urls import path

from games import pages, tournament_pages

urlpatterns = [
    path("games/<int:game_id>/", pages.game_page, name="game-page"),
    path("games/<int:game_id>/replay/", pages.replay_page, name="replay"),
    path("games/<int:game_id>/race/", pages.race_page, name="race"),
    path("leaderboard/", pages.leaderboard_page, name="leaderboard"),
    path("leaderboard/<str:mode>/", pages.leaderboard_page, name="leaderboard-mode"),
    path("tournaments/", tournament_pages.tournaments_page, name="tournaments"),
    path("tournaments/<int:tournament_id>/", tournament_pages.tournament_page, name="tournament"),
]
