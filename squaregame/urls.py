"""The Square Game's JSON routes (mounted under /api/)."""

from django.urls import path

from squaregame import api

urlpatterns = [
    path("games/<int:game_id>/save", api.SquareSaveView.as_view(), name="game-save"),
    path("square/import", api.SquareImportView.as_view(), name="square-import"),
]
