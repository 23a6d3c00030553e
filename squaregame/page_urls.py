"""The Square Game's pages, mounted at the site root."""

from django.urls import path

from squaregame import pages

urlpatterns = [
    path("square/", pages.square_home, name="square"),
    path("square/import", pages.square_import, name="square-import-page"),
    path("square/<int:game_id>/", pages.square_game, name="square-game"),
]
