"""WebSocket routes."""

from django.urls import path

from games.consumers import GameSocket

websocket_urlpatterns = [
    path("ws/games/<int:game_id>/", GameSocket.as_asgi()),
]
