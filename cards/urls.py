from django.urls import path

from cards import api

urlpatterns = [
    path("set/check", api.CheckView.as_view(), name="set-check"),
    path("set/find", api.FindView.as_view(), name="set-find"),
    path("set/solitaire", api.SolitaireView.as_view(), name="set-solitaire"),
]
