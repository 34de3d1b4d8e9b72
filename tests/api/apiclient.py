"""A script's view of the API in tests: Django's test client with a personal token in the
Authorization header, JSON bodies, and the JSON answer read back."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.test import Client

from api.tokens import issue_token


@dataclass
class Answer:
    status: int
    body: Any
    headers: Any


class Api:
    def __init__(self, client: Client, token: str | None = None):
        self.client = client
        self.token = token

    @classmethod
    def for_user(cls, user, name: str = "tests") -> Api:
        _, raw = issue_token(user=user, name=name)
        return cls(Client(), raw)

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def _answer(self, response) -> Answer:
        kind = response.get("Content-Type", "")
        body: Any = None
        if "json" in kind:
            body = json.loads(b"".join(response) if response.streaming else response.content)
        return Answer(response.status_code, body, response.headers)

    def get(self, path: str, params: dict | None = None) -> Answer:
        return self._answer(self.client.get(path, params or {}, headers=self._headers()))

    def post(self, path: str, data: Any = None) -> Answer:
        response = self.client.post(
            path,
            json.dumps(data if data is not None else {}),
            content_type="application/json",
            headers=self._headers(),
        )
        return self._answer(response)

    def delete(self, path: str) -> Answer:
        return self._answer(self.client.delete(path, headers=self._headers()))
