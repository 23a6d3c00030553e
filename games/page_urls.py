"""The pages a person uses (games.pages); mounted at the site root before the protocol routes."""

from django.urls import path

from games import pages, setwar_pages, square_pages

urlpatterns = [
    path("", pages.lobby, name="home"),
    path("name", pages.name_set, name="name-set"),
    path("play/new", pages.table_create, name="table-create"),
    path("play/<int:game_id>/", pages.table_page, name="table"),
    path("solitaire/", pages.solitaire, name="solitaire"),
    path("solitaire/<int:game_id>/", pages.solitaire_game, name="solitaire-game"),
    path("games/<int:game_id>/", pages.game_page, name="game-page"),
    path("games/<int:game_id>/replay/", pages.replay_page, name="replay"),
    path("setwar/", setwar_pages.setwar_page, name="setwar"),
    path("square/", square_pages.square_home, name="square"),
    path("square/import", square_pages.square_import, name="square-import-page"),
    path("square/<int:game_id>/", square_pages.square_game, name="square-game"),
    path("setwar/<int:game_id>/", setwar_pages.setwar_page, name="setwar-game"),
]
