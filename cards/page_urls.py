"""The Set and Set War pages, mounted at the site root."""

from django.urls import path

from cards import pages, puzzle, races, stats
from cards.setwar import pages as setwar_pages

urlpatterns = [
    path("", pages.lobby, name="home"),
    path("name", pages.name_set, name="name-set"),
    path("play/new", pages.table_create, name="table-create"),
    path("play/<int:game_id>/", pages.table_page, name="table"),
    path("solitaire/", pages.solitaire, name="solitaire"),
    path("solitaire/<int:game_id>/", pages.solitaire_game, name="solitaire-game"),
    path("puzzle/", puzzle.puzzle, name="puzzle"),
    path("races/", races.races_page, name="races"),
    path("setwar/", setwar_pages.setwar_page, name="setwar"),
    path("setwar/<int:game_id>/", setwar_pages.setwar_page, name="setwar-game"),
    path("stats/", stats.stats_page, name="stats"),
    path("stats/runs", stats.runs, name="stats-runs"),
    path("stats/runs/<str:run_id>", stats.run_detail, name="stats-run"),
]
