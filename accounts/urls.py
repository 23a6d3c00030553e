from django.urls import path

from accounts import views

urlpatterns = [
    path("tokens/", views.tokens, name="account_tokens"),
    # allauth's sign-up page, one transaction (included before allauth.urls).
    path("signup/", views.SignupView.as_view(), name="account_signup"),
]
