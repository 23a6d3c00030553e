from django.urls import path

from accounts import views

urlpatterns = [
    path("tokens/", views.tokens, name="account_tokens"),
]
