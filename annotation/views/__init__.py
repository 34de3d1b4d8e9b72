"""Views of the annotation app: the paper pages, curation, claim writing, review, and the
admins' pages (the workspace home composes every stage: `workspace.views`)."""
