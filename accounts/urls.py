from django.urls import path

from accounts import views

urlpatterns = [
    path("tokens/", views.tokens, name="account_tokens"),
    # allauth's own pages, under the site's limits (included before allauth.urls).
    path("login/", views.LoginView.as_view(), name="account_login"),
    path("signup/", views.SignupView.as_view(), name="account_signup"),
]
