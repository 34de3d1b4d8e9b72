"""The work queue: items handed out with a lease, their lifecycle and history."""
