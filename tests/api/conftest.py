"""Fixtures of the API's tests: an admin's and an annotator's token clients."""

from __future__ import annotations

import pytest

from tests.api.apiclient import Api
from tests.factories import AdminFactory, UserFactory


@pytest.fixture
def admin_api(db) -> Api:
    return Api.for_user(AdminFactory(username="api-admin"))


@pytest.fixture
def annotator_api(db) -> Api:
    return Api.for_user(UserFactory(username="api-annotator"))
