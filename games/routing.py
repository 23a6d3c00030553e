"""WebSocket routes."""

from django.urls import path

from games.consumers import GameConsumer
from games.lobby_consumer import LobbyConsumer
from games.tournament_consumer import TournamentConsumer

websocket_urlpatterns = [
    path("ws/games/<int:game_id>/", GameConsumer.as_asgi()),
    path("ws/lobby/", LobbyConsumer.as_asgi()),
    path("ws/tournaments/<int:tournament_id>/", TournamentConsumer.as_asgi()),
]
