"""Views of the annotation app: the workspace, curation, and the admins' pages."""
