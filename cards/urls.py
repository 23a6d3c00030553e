"""The Set and Set War JSON routes (mounted under /api/)."""

from django.urls import path

from cards import api
from cards.setwar import api as setwar_api

urlpatterns = [
    path("set/check", api.CheckView.as_view(), name="set-check"),
    path("set/find", api.FindView.as_view(), name="set-find"),
    path("set/solitaire", api.SolitaireView.as_view(), name="set-solitaire"),
    path("races/best", api.RaceBestView.as_view(), name="races-best"),
    path("setwar/", setwar_api.SetWarCreateView.as_view(), name="setwar-create"),
    path("setwar/<int:game_id>/", setwar_api.SetWarDetailView.as_view(), name="setwar-detail"),
    path(
        "setwar/<int:game_id>/rounds",
        setwar_api.SetWarRoundsView.as_view(),
        name="setwar-rounds",
    ),
]
