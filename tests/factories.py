"""factory_boy factories shared by the tests."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")

    @factory.post_generation
    def password(user, create: bool, value: str | None, **kwargs) -> None:
        user.set_password(value or "pw-for-tests-1")
        if create:
            user.save(update_fields=["password"])


class AdminFactory(UserFactory):
    username = factory.Sequence(lambda n: f"admin{n}")
    is_staff = True
    is_superuser = True
