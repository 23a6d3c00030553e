from django.urls import path

from accounts import views

urlpatterns = [
    path("u/<str:name>", views.profile, name="profile"),
    path("u/<str:name>/", views.profile_slash),
    path("moderation/", views.moderation_page, name="moderation"),
]
