"""Account routes: sign in and out, password change, and the one-time links admins hand out.

There is no self-service "forgot password" form: no e-mail server is needed, an admin makes
a link (People → reset password) and gives it to the person.
"""

from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from annotation.views.sessions import my_sessions

urlpatterns = [
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(next_page="login"), name="logout"),
    path("sessions/", my_sessions, name="account_sessions"),
    path(
        "password_change/",
        auth_views.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "password_change/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path(
        "reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            post_reset_login=True,
            # Two backends (the sign-in throttle, then the password check): name the one that
            # signs the person in.
            post_reset_login_backend="django.contrib.auth.backends.ModelBackend",
            success_url=reverse_lazy("password_reset_complete"),
        ),
        name="password_reset_confirm",
    ),
    path(
        "reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
]
