"""The site app has no tables of its own now: its sign-in session table (`config_session`) gave
way to Django's sessions (issue 41; the link from a session to its person is
`annotation.models.SessionLink`). Its migrations remove the table."""
